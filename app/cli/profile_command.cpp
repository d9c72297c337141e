#include "app/cli/profile_command.h"

#include "app/cli/output_file.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/profile/profile_table.h"
#include "core/report/json_text.h"
#include "core/report/profile_report.h"
#include "core/report/trace_export.h"
#include "core/session/session.h"

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace gapscope::cli {

namespace {

struct ProfileCommandOptions {
    std::vector<std::string> paths;
    std::string source = "ns", target = "ms";
    std::string json, csv, trace;
};

int fail(const std::string& message, int code = 1) {
    std::cerr << "gapscope-cli profile: " << message << '\n';
    return code;
}

int runProfile(const ProfileCommandOptions& o) {
    const auto source = parseTimeScale(o.source), target = parseTimeScale(o.target);
    if (!source || !target)
        return fail("a time scale is one of ns, us, ms, s or cycles", 2);
    if (!timeScalesCompatible(*source, *target))
        return fail("cycles convert to cycles only (as ExecuTorch's Inspector requires)", 2);
    const std::vector<std::pair<std::string, std::string>> outputs{
        {"--json", o.json}, {"--csv", o.csv}, {"--trace", o.trace}};
    if (const auto clash = checkOutputs(outputs))
        return fail(*clash, 2);
    std::vector<Error> errors;
    const SessionInputs inputs = sessionInputsFromPaths(o.paths, errors);
    if (!errors.empty())
        return fail(errors.front().describe());
    const SessionFiles files = sortSessionFiles(inputs, "forward", "", "");
    if (!files.etdump)
        return fail("no ETDump among the inputs (its content is told, not its name)");
    // The ETDump and ETRecord are inputs: no output may replace them (issue 55, class 1).
    protectInputs(files);
    if (const auto over = refuseOutputsOverInputs(outputs))
        return fail(*over);
    EtdumpReadOptions readOptions;
    readOptions.name = files.etdump->path();
    auto dump = parseEtdump(files.etdump->bytes(), readOptions);
    if (!dump)
        return fail(dump.error().describe());
    std::optional<EtRecord> etrecord;
    if (files.etrecord) {
        auto read = readEtRecord(files.etrecord);
        if (!read)
            return fail(read.error().describe());
        etrecord = std::move(read.value());
    }
    ProfileOptions options;
    options.source = *source;
    options.target = *target;
    options.etrecord = etrecord ? &*etrecord : nullptr;
    const ProfileTable table = profileTable(dump.value(), options);
    if (!writesToStdout(outputs)) // a report on standard output is not mixed with the table
        writeProfileText(std::cout, table);
    if (!o.json.empty()) {
        const auto text = renderJson(profileToJson(table));
        if (text.replaced)
            std::cerr << "gapscope-cli profile: warning: " << invalidUtf8Warning(files.etdump->path())
                      << '\n';
        if (const auto error = writeOutput(o.json, text.text + "\n"))
            return fail(*error);
    }
    if (!o.csv.empty()) {
        std::ostringstream csv;
        writeProfileCsv(csv, table);
        if (const auto error = writeOutput(o.csv, csv.str()))
            return fail(*error);
    }
    if (!o.trace.empty()) {
        TraceOptions trace;
        trace.source = *source;
        trace.etrecord = options.etrecord;
        const auto text = renderJson(traceToJson(dump.value(), trace), -1);
        if (const auto error = writeOutput(o.trace, text.text + "\n"))
            return fail(*error);
    }
    return 0;
}

} // namespace

void addProfileCommand(CLI::App& app, int& exitCode) {
    auto o = std::make_shared<ProfileCommandOptions>();
    auto* cmd = app.add_subcommand(
        "profile", "ExecuTorch's Inspector timing table of an ETDump: each event's durations over its runs, "
                   "p10/p50/p90, avg, min, max (docs/profiling.md)");
    cmd->add_option("inputs", o->paths,
                    "A session folder, or its files (the ETDump; the ETRecord names delegates)")
        ->required();
    cmd->add_option("--source-time-scale", o->source,
                    "What the ETDump's ticks are: ns (default), us, ms, s, cycles");
    cmd->add_option("--target-time-scale", o->target,
                    "The table's unit: ms (default, the Inspector's), ns, us, s, cycles");
    cmd->add_option("--json", o->json, "Write the table as JSON (the Inspector's column names)");
    cmd->add_option("--csv", o->csv, "Write the table as CSV");
    cmd->add_option(
        "--trace", o->trace,
        "Write every run's events as a Chrome trace (Perfetto, chrome://tracing): one track per delegate");
    cmd->callback([o, &exitCode] { exitCode = runProfile(*o); });
}

} // namespace gapscope::cli
