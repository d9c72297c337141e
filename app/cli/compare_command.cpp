#include "app/cli/compare_command.h"

#include "core/capture/aot_capture.h"
#include "core/common/atomic_file.h"
#include "core/common/sha256.h"
#include "core/compare/comparison.h"
#include "core/compare/findings.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/report/compare_report.h"

#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace gapscope::cli {

namespace {

struct CompareOptions {
    std::string etdump, debugBuffer, etrecord, capture;
    int run = -1;
    std::string method = "forward";
    std::string threshold = "snr=20";
    std::vector<std::string> failAbove;
    bool failOnInvalid = false;
    std::string csv, json, markdown;
};

int fail(const std::string& message) {
    std::cerr << "gapscope-cli compare: " << message << '\n';
    return 1;
}

std::optional<std::string> writeOutput(const std::string& path, const std::string& text) {
    if (path.empty())
        return std::nullopt;
    if (auto err = writeFileAtomically(path, std::string_view(text)))
        return err->describe();
    return std::nullopt;
}

InputProvenance provenance(const std::string& role, const std::string& path) {
    InputProvenance p{role, path, 0, ""};
    if (auto f = MappedFile::open(path)) {
        p.bytes = f.value()->size();
        p.sha256 = sha256Hex(f.value()->bytes());
    }
    return p;
}

int runCompare(const CompareOptions& o) {
    ReportContext ctx;
    ctx.method = o.method;
    std::string error;
    auto threshold = parseThreshold(o.threshold, error);
    if (!threshold)
        return fail("--threshold: " + error), 2;
    ctx.threshold = *threshold;
    for (const auto& g : o.failAbove) {
        auto gate = parseThreshold(g, error);
        if (!gate)
            return fail("--fail-above: " + error), 2;
        ctx.gates.push_back(*gate);
    }

    std::optional<std::string> buffer;
    if (!o.debugBuffer.empty())
        buffer = o.debugBuffer;
    auto dump = loadEtdump(o.etdump, buffer);
    if (!dump)
        return fail(dump.error().describe());
    std::optional<EtRecord> record;
    if (!o.etrecord.empty()) {
        auto r = loadEtRecord(o.etrecord);
        if (!r)
            return fail(r.error().describe());
        record = std::move(r).value();
    }
    auto capture = loadAotCapture(o.capture);
    if (!capture)
        return fail(capture.error().describe());

    ComparisonOptions options;
    options.method = o.method;
    if (o.run >= 0)
        options.run = static_cast<std::size_t>(o.run);
    auto comparison = compareSession(dump.value(), record ? &*record : nullptr, capture.value(), options);
    if (!comparison)
        return fail(comparison.error().describe());
    const Comparison& c = comparison.value();

    ctx.inputs.push_back(provenance("etdump", o.etdump));
    if (buffer)
        ctx.inputs.push_back(provenance("debug_buffer", *buffer));
    if (record)
        ctx.inputs.push_back(provenance("etrecord", o.etrecord));
    ctx.inputs.push_back(provenance("capture", o.capture));
    if (record && capture.value().etrecord_sha256 && ctx.inputs.size() >= 3 &&
        *capture.value().etrecord_sha256 != provenance("etrecord", o.etrecord).sha256)
        std::cerr << "gapscope-cli compare: warning: the capture was made from another ETRecord (SHA-256 "
                     "differs)\n";
    ctx.first_divergence = firstDivergence(c, ctx.threshold);
    if (record)
        ctx.introducers = errorIntroducers(c, referenceGraphFor(*record, capture.value()));

    writeComparisonTable(std::cout, c, ctx);

    std::ostringstream csv, md;
    writeComparisonCsv(csv, c);
    writeComparisonMarkdown(md, c, ctx);
    for (const auto& [path, text] : {std::pair<std::string, std::string>{o.csv, csv.str()},
                                     {o.json, comparisonToJson(c, ctx).dump(2) + "\n"},
                                     {o.markdown, md.str()}})
        if (auto err = writeOutput(path, text))
            return fail(*err);

    int tripped = 0;
    for (const auto& gate : ctx.gates) {
        const auto info = findMetric(gate.metric);
        for (const auto& row : c.rows) {
            const auto v = rowMetric(row, gate.metric);
            if (v && worseThan(*info, *v, gate.value)) {
                std::cerr << "gate " << gate.metric << "=" << gate.value << " tripped by row " << row.index
                          << " (" << (row.aot_ops.empty() ? "" : row.aot_ops.back()) << "): " << *v << '\n';
                ++tripped;
            }
        }
    }
    if (o.failOnInvalid)
        for (const auto& row : c.rows)
            if (row.status == RowStatus::Invalid) {
                std::cerr << "row " << row.index << " is an invalid comparison: " << row.reason << '\n';
                ++tripped;
            }
    return tripped > 0 ? 3 : 0;
}

} // namespace

void addCompareCommand(CLI::App& app, int& exitCode) {
    auto o = std::make_shared<CompareOptions>();
    auto* cmd =
        app.add_subcommand("compare", "Align runtime and reference intermediate outputs and report the gaps");
    cmd->add_option("--etdump", o->etdump, "ETDump written by the runtime")->required();
    cmd->add_option("--debug-buffer", o->debugBuffer, "Debug buffer with the runtime tensors");
    cmd->add_option("--etrecord", o->etrecord, "ETRecord of the program");
    cmd->add_option("--capture", o->capture, "AOT capture (gapscope-capture)")->required();
    cmd->add_option("--run", o->run, "RunData index (default: the first run with debug events)");
    cmd->add_option("--method", o->method, "Method to compare")->capture_default_str();
    cmd->add_option("--threshold", o->threshold, "First-divergence threshold METRIC=VALUE")
        ->capture_default_str();
    cmd->add_option(
        "--fail-above", o->failAbove,
        "Exit 3 when any row is worse than METRIC=VALUE (higher for error metrics, lower for snr, "
        "sqnr, cosine, top1, top5); repeatable");
    cmd->add_flag("--fail-on-invalid", o->failOnInvalid, "Exit 3 when a row cannot be compared");
    cmd->add_option("--csv", o->csv, "Write the table as CSV (atomically)");
    cmd->add_option("--json", o->json, "Write the JSON report (atomically)");
    cmd->add_option("--markdown", o->markdown, "Write a Markdown report (atomically)");
    cmd->callback([o, &exitCode] { exitCode = runCompare(*o); });
}

} // namespace gapscope::cli
