#include "app/cli/compare_command.h"

#include "app/cli/compare_options.h"
#include "app/cli/diff_command.h"
#include "app/cli/gate_lines.h"
#include "app/cli/make_capture.h"
#include "app/cli/output_file.h"
#include "core/capture/aot_capture.h"
#include "core/common/atomic_file.h"
#include "core/common/file_safety.h"
#include "core/common/side_task.h"
#include "core/compare/comparison.h"
#include "core/compare/findings.h"
#include "core/compare/gates.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/row_name.h"
#include "core/compare/run_checks.h"
#include "core/report/compare_report.h"
#include "core/report/json_text.h"
#include "core/report/ladder_report.h"
#include "core/report/model_explorer_export.h"
#include "core/report/production_json.h"
#include "core/report/safe_text.h"
#include "core/report/text_format.h"
#include "core/runs/run_summary.h"
#include "core/session/production_build.h"
#include "core/session/session.h"
#include "core/session/session_ladder.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace gapscope::cli {

int compareFailed(const std::string& message) {
    std::cerr << "gapscope-cli compare: " << message << '\n';
    return 1;
}

std::optional<std::string> unusableSession(const Session& session, const SessionFiles& files) {
    if (session.errors.empty() && !session.comparison)
        return "nothing to compare: " + files.etdump->path() + " and " + files.capture->path();
    return whySessionUnusable(session); // the app's headless report says the same
}

namespace {

// The node-data overlays, one file each, into `folder` (made when missing, one
// level only; an existing one must be a folder).
std::optional<std::string> writeModelExplorer(const std::string& folder, const Session& session) {
    if (!session.etrecord)
        return std::string(
            "--model-explorer needs the ETRecord: Model Explorer's nodes are its edge program's");
    if (auto unsafe = refuseUnsafeOutputFolder(folder))
        return unsafe->describe();
    std::error_code ec;
    if (!std::filesystem::exists(folder, ec))
        std::filesystem::create_directory(folder, ec);
    if (ec || !std::filesystem::is_directory(folder, ec))
        return folder + ": not a folder that can be written (" + (ec ? ec.message() : "a file") + ")";
    const auto exported =
        modelExplorerNodeData(*session.comparison, session.latency.get(), *session.etrecord);
    for (const auto& note : exported.notes)
        std::cerr << "gapscope-cli compare: model explorer: " << note << '\n';
    if (exported.files.empty())
        return std::string("--model-explorer: no node could be given a value");
    for (const auto& f : exported.files)
        if (auto err = writeOutput((std::filesystem::path(folder) / f.file).string(), f.json))
            return err;
    return std::nullopt;
}

// The session's files from the command line: folders and files sorted by
// content, or the files named by option. Every input is mapped once: read,
// compared and hashed from the same bytes. Nothing, or the exit status (the
// reason said on stderr).
std::optional<int> gatherFiles(const CompareOptions& o, SessionFiles& files, Workspace& workspace,
                               std::optional<EventsBuilt>& events) {
    if (!o.paths.empty()) {
        // Folders and files sorted by content, as the app sorts them (sortSessionFiles);
        // a file given with its option fills that slot whatever the folder holds.
        std::vector<std::string> paths = o.paths;
        for (const auto& [option, named] : {std::pair<const char*, const std::string*>{"--etdump", &o.etdump},
                                            {"--debug-buffer", &o.debugBuffer},
                                            {"--etrecord", &o.etrecord},
                                            {"--capture", &o.capture},
                                            {"--outputs", &o.outputs}}) {
            if (named->empty())
                continue;
            // An option names one file: a folder given to it would be searched
            // like PATHS and the slot left unfilled (issue 55, class 9).
            if (auto why = refuseNonRegularInput(*named))
                return compareFailed(std::string(option) + ": " + why->describe());
            paths.push_back(*named);
        }
        std::vector<Error> errors;
        const SessionInputs inputs = sessionInputsFromPaths(paths, errors);
        if (!errors.empty())
            return compareFailed(errors.front().describe());
        const auto normal = [](const std::string& p) {
            return p.empty() ? p : std::filesystem::path(p).lexically_normal().string();
        };
        // The app's first stage: the ETDump is read into the workspace beside the
        // captures, and the plan's events built after it on the same core.
        ComparisonOptions plan;
        plan.method = o.method;
        if (o.run >= 0)
            plan.run = static_cast<std::size_t>(o.run);
        files = sortSessionFiles(inputs, o.method, normal(o.capture), normal(o.debugBuffer), &workspace, {},
                                 &plan, &events);
        for (const auto& e : files.unrecognized)
            std::cerr << "gapscope-cli compare: warning: " << e.describe() << "\n";
        const auto byPath = [&](const std::string& path) {
            for (const auto& f : inputs.files)
                if (f->path() == normal(path))
                    return f;
            return std::shared_ptr<const MappedFile>();
        };
        if (!o.etdump.empty())
            files.etdump = byPath(o.etdump);
        if (!o.etrecord.empty())
            files.etrecord = byPath(o.etrecord);
        if (!o.outputs.empty() && (!files.saved_outputs || files.saved_outputs != byPath(o.outputs))) {
            const auto named = byPath(o.outputs);
            for (const auto& e : files.unrecognized)
                if (named && e.where.file == named->path())
                    return compareFailed("--outputs: " + e.describe());
            return compareFailed(
                "--outputs: " + o.outputs +
                ": not the method's saved outputs (a safetensors whose tensors are named outputs/<index> "
                "or outputs/<execution>/<index>, docs/your-model.md)");
        }
        // A file named like an input that no reader takes is said above; where the
        // session then lacks that input, its reader's message is the error.
        if (!files.etdump)
            return compareFailed(files.unrecognized.empty() ? "no ETDump among " + join(o.paths, ", ") +
                                                                  " (its content is told, not its name)"
                                                            : files.unrecognized.front().describe());
        if (!files.capture && o.makeCapture && files.etrecord) {
            // The device's folder to its table in one command (issue 60): the
            // exporter makes the reference beside the ETRecord, then the folder is read again.
            const auto request = captureRequestFor(files.etrecord->path(), o.method);
            if (const auto status = makeCapture(request))
                return status;
            CompareOptions again = o;
            again.makeCapture = false;
            std::error_code ec;
            const auto beside = std::filesystem::path(request.output).parent_path();
            if (std::none_of(o.paths.begin(), o.paths.end(), [&](const std::string& p) {
                    return std::filesystem::is_directory(p, ec) && std::filesystem::equivalent(p, beside, ec);
                }))
                again.paths.push_back(request.output);
            files = SessionFiles{};
            events.reset();
            return gatherFiles(again, files, workspace, events);
        }
        if (!files.capture)
            return compareFailed("no AOT capture among " + join(o.paths, ", ") +
                                 (files.etrecord ? ": make one with --make-capture, or with gapscope-capture "
                                                   "(python/README.md)"
                                                 : ": make one with gapscope-capture (python/README.md)"));
        if (!files.debug_buffer && !files.debug_buffer_candidates.empty()) {
            std::string list;
            for (const auto& c : files.debug_buffer_candidates)
                list += "\n  " + c;
            return compareFailed("several files could be the debug buffer; name one with --debug-buffer:" +
                                 list);
        }
        // The others are files beside the session, not its inputs: warned about, not fatal.
        files.unrecognized.clear();
    } else if (o.etdump.empty() || o.capture.empty()) {
        return compareFailed("give a session folder or its files (gapscope-cli compare DIR), or --etdump and "
                             "--capture"),
               2;
    } else {
        for (const auto& [path, slot] :
             {std::pair<const std::string*, std::shared_ptr<const MappedFile>*>{&o.etdump, &files.etdump},
              {&o.debugBuffer, &files.debug_buffer},
              {&o.etrecord, &files.etrecord},
              {&o.capture, &files.capture}}) {
            if (path->empty())
                continue;
            auto mapped = MappedFile::open(*path);
            if (!mapped)
                return compareFailed(mapped.error().describe());
            *slot = mapped.value();
        }
    }
    return std::nullopt;
}

// The session's folder: where `gapscope-capture stages` put its references
// (stages/). Empty when the files were given one by one.
std::string sessionFolder(const CompareOptions& o) {
    std::error_code ec;
    for (const auto& path : o.paths)
        if (std::filesystem::is_directory(path, ec))
            return path;
    return {};
}

int runCompare(const CompareOptions& o) {
    ReportContext ctx;
    std::string error;
    const std::vector<std::pair<std::string, std::string>> outputs{{"--csv", o.csv},
                                                                   {"--json", o.json},
                                                                   {"--markdown", o.markdown},
                                                                   {"--model-explorer", o.modelExplorer}};
    if (const auto clash = checkOutputs(outputs, {"--model-explorer"}))
        return compareFailed(*clash), 2;
    // The first divergence is judged by the gate when one is given: a table that says
    // "crosses snr 20" under a passing snr=10 gate reads as a failure.
    const std::string thresholdText = !o.threshold.empty()      ? o.threshold
                                      : o.failAbove.size() == 1 ? o.failAbove.front()
                                                                : std::string();
    auto threshold =
        thresholdText.empty() ? std::optional(kDefaultThreshold) : parseThreshold(thresholdText, error);
    if (!threshold)
        return compareFailed("--threshold: " + error), 2;
    ctx.threshold = *threshold;
    for (const auto& g : o.failAbove) {
        auto gate = parseThreshold(g, error);
        if (!gate)
            return compareFailed("--fail-above: " + error), 2;
        ctx.gates.push_back(*gate);
    }
    std::vector<MetricThreshold> margins;
    if (!parseMargins(o.failIfWorse, margins, error))
        return compareFailed("--fail-if-worse: " + error), 2;
    if (!margins.empty() && o.baseline.empty())
        return compareFailed("--fail-if-worse compares with a baseline: give it with --baseline OLD.json"), 2;

    // One workspace for every stage and run: what is parsed once is never parsed again.
    const auto workspace = std::make_shared<Workspace>();
    SessionFiles files;
    std::optional<EventsBuilt> events; // the read stage's second product, for the plan
    if (const auto status = gatherFiles(o, files, *workspace, events))
        return *status;
    // Every input is read before anything is written, and none is replaced: the
    // session's files and the baseline report are protected now, and the outputs
    // checked against them before the comparison runs (issue 55, class 1).
    protectInputs(files);
    std::optional<SavedReport> baseline;
    if (!o.baseline.empty()) {
        auto read = loadSavedReport(o.baseline);
        if (!read)
            return compareFailed("--baseline: " + read.error().describe());
        baseline = std::move(read.value());
    }
    // The production build's files are inputs too: read (and protected) before any output.
    std::optional<ProductionBuild> productionBuild;
    if (!o.production.empty()) {
        if (o.allRuns)
            return compareFailed("--production checks one run against the production build: give it without "
                                 "--all-runs"),
                   2;
        auto build = loadProductionBuild(o.production);
        if (!build)
            return compareFailed("--production: " + build.error().describe());
        productionBuild = std::move(build.value());
    }
    if (const auto over = refuseOutputsOverInputs(outputs, {"--model-explorer"}))
        return compareFailed(*over);
    // A report lists every input's SHA-256, which reads every byte: hashed on a
    // background thread while the comparison runs, and only when a report is
    // written (the table shows no digest).
    std::optional<SideTask<std::vector<InputProvenance>>> digests;
    if (!o.json.empty() || !o.markdown.empty())
        digests.emplace([files] {
            SessionFiles others = files;
            others.etrecord.reset(); // the provenance check's digest serves (withEtRecordDigest)
            return hashInputs(others);
        });
    SessionOptions options;
    options.workspace = workspace;
    options.threshold = ctx.threshold;
    options.comparison.method = o.method;
    if (o.run >= 0)
        options.comparison.run = static_cast<std::size_t>(o.run);
    if (o.allRuns && o.ladder)
        return compareFailed("--ladder is of one run: give it without --all-runs"), 2;
    if (o.allRuns)
        return compareAllRuns(o, files, options, ctx,
                              digests ? digests->get() : std::vector<InputProvenance>{},
                              baseline ? &*baseline : nullptr, std::move(events));
    const auto session = loadSessionFiles(files, options, std::move(events));
    if (!session->errors.empty())
        return compareFailed(session->errors.front().describe());
    if (!session->comparison)
        return compareFailed("nothing to compare: " + files.etdump->path() + " and " + files.capture->path());
    const Comparison& c = *session->comparison;
    const auto gates = ctx.gates;
    ctx = reportContextFor(*session, digests ? withEtRecordDigest(digests->get(), *session)
                                             : std::vector<InputProvenance>{});
    ctx.gates = gates;
    for (const auto& warning : c.warnings)
        std::cerr << "gapscope-cli compare: warning: " << warning << "\n";
    for (const auto& note : c.notes)
        std::cerr << "gapscope-cli compare: note: " << note << "\n";

    // The tapped build against production: read and checked before any output is
    // written, so that the JSON report carries it.
    std::optional<ProductionCheck> production;
    if (!o.production.empty()) {
        auto checked = checkAgainstProduction(*session, *productionBuild);
        if (!checked)
            return compareFailed("--production: " + checked.error().describe());
        production = std::move(checked.value());
        if (!production->samePartitions() || !production->outputsAgree())
            std::cerr << "gapscope-cli compare: warning: production: the tapped build differs from the "
                         "production build ("
                      << (production->outputsAgree() ? "its partitions or quantisation"
                                                     : "its program outputs differ beyond rounding")
                      << "): see the production lines, or the JSON report's `production`\n";
    }

    // Every reference of the run on one ladder (issue 59): compared before any
    // output is written, so that the JSON report carries it.
    std::optional<StageLadder> ladder;
    if (o.ladder) {
        std::vector<std::string> notes;
        const auto captures = ladderCaptures(files, sessionFolder(o), notes);
        ladder = openStageLadder(*session, files, captures, options);
        ladder->notes.insert(ladder->notes.end(), notes.begin(), notes.end());
    }

    if (!writesToStdout(outputs)) { // a report on standard output is not mixed with the table
        writeComparisonTable(std::cout, c, ctx);
        if (production)
            writeProductionCheck(std::cout, *production);
        if (ladder)
            writeStageLadder(std::cout, *ladder);
    }

    // Each report is built only when asked for: on 50,000 rows the JSON
    // document alone took more than half of the run.
    if (!o.csv.empty()) {
        std::ostringstream csv;
        writeComparisonCsv(csv, c, session->latency.get());
        if (auto err = writeOutput(o.csv, csv.str()))
            return compareFailed(*err);
    }
    if (!o.json.empty()) {
        auto document = comparisonToJson(c, ctx);
        if (production)
            document["production"] = productionCheckToJson(*production);
        if (ladder)
            document["ladder"] = stageLadderToJson(*ladder);
        const auto json = renderJson(document);
        if (json.replaced)
            std::cerr << "gapscope-cli compare: warning: " << invalidUtf8Warning(o.json) << "\n";
        if (auto err = writeOutput(o.json, json.text + "\n"))
            return compareFailed(*err);
    }
    if (!o.modelExplorer.empty()) {
        if (auto err = writeModelExplorer(o.modelExplorer, *session))
            return compareFailed(*err);
    }
    if (!o.markdown.empty()) {
        std::ostringstream md;
        writeComparisonMarkdown(md, c, ctx);
        if (auto err = writeOutput(o.markdown, md.str()))
            return compareFailed(*err);
    }

    // A device run rewrote an input while it was read: the numbers are not the file's.
    for (const auto& path : changedInputs(*session))
        return compareFailed(
            path + ": changed on disk while it was read: the numbers are not to be trusted; run again");
    int tripped = sayGateFailures(std::cerr, c, ctx.gates, o.failOnInvalid);
    if (baseline) {
        const int worse = checkBaseline(
            {summarizeRun(c, files.etdump->path(), {ctx.reference_program, ctx.reference_kind})}, false,
            *baseline, o.baseline, margins);
        if (worse < 0)
            return 1;
        tripped += worse;
    }
    return tripped > 0 ? 3 : 0;
}

} // namespace

void addCompareCommand(CLI::App& app, int& exitCode) {
    auto o = std::make_shared<CompareOptions>();
    auto* cmd =
        app.add_subcommand("compare", "Align runtime and reference intermediate outputs and report the gaps");
    cmd->add_option("paths", o->paths,
                    "Session folders or files, told apart by content as the app does (ExecuTorch's layout: "
                    "etdump.etdp, debug_buffer.bin or debug_output.bin, etrecord.bin, model.pte, a capture); "
                    "the options below name a file for one slot");
    cmd->add_option("--etdump", o->etdump, "ETDump written by the runtime (required without PATHS)");
    cmd->add_option("--debug-buffer", o->debugBuffer, "Debug buffer with the runtime tensors");
    cmd->add_option("--etrecord", o->etrecord, "ETRecord of the program");
    cmd->add_option("--capture", o->capture,
                    "AOT capture (gapscope-capture; required without PATHS; with PATHS: which capture)");
    cmd->add_option("--run", o->run, "RunData index (default: the first run with debug events)")
        ->check(CLI::Validator(
            [](std::string& v) {
                return !v.empty() && v[0] == '-' ? std::string("a RunData index is 0 or more, not " + v)
                                                 : std::string();
            },
            "INDEX"));
    cmd->add_option("--method", o->method,
                    "Program method to compare (default: the capture's). ETDump runs carry no method "
                    "name: the default run is the first whose events fit this method");
    cmd->add_option("--threshold", o->threshold,
                    "First-divergence threshold METRIC=VALUE (default: the --fail-above gate when one is "
                    "given, else snr=20)");
    // One value per --fail-above (and --fail-if-worse): a vector option takes
    // every word up to the next option by default, so `--fail-above snr=20 DIR`
    // read the session folder as a second gate.
    cmd->add_option(
           "--fail-above", o->failAbove,
           "Exit 3 when any row is worse than METRIC=VALUE (higher for error metrics, lower for snr, "
           "sqnr, cosine, top1, top5); repeatable")
        ->allow_extra_args(false);
    cmd->add_flag("--fail-on-invalid", o->failOnInvalid, "Exit 3 when a row cannot be compared");
    cmd->add_option("--outputs", o->outputs,
                    "The method's outputs as saved on the device (safetensors, tensors outputs/<index> or "
                    "outputs/<execution>/<index>): the taps' values without a debug buffer. A file so named "
                    "in the folder is taken without it");
    cmd->add_option(
        "--production", o->production,
        "A tapped session's production build: its ETRecord, or its folder (ETRecord, ETDump, debug "
        "buffer). Says which delegates differ and whether the program outputs agree (docs/your-model.md)");
    cmd->add_flag(
        "--ladder", o->ladder,
        "The stage ladder: the run compared with every reference of it (the captures beside the "
        "session and in its stages/ folder, written by gapscope-capture stages), ordered float model, "
        "ATen, edge, backend passes, quantised simulation, host kernels, device; per op, the SNR each "
        "step adds and the step that loses the most (docs/metrics.md, \"Stage ladder\")");
    cmd->add_flag("--make-capture", o->makeCapture,
                  "Without a capture among PATHS: make it first with the exporter (gapscope-capture "
                  "for-session; $GAPSCOPE_CAPTURE names its command), beside the ETRecord, on the inputs "
                  "file found there");
    cmd->add_flag("--all-runs", o->allRuns,
                  "Compare every execution of the method in the ETDump, each with its own step capture where "
                  "the session has one per step (gapscope-capture from-etrecord with several --inputs); "
                  "--json then holds every run's report under 'runs'");
    cmd->add_option("--baseline", o->baseline,
                    "A saved JSON report (an earlier compare --json) to compare this run with, rows paired "
                    "as gapscope-cli diff pairs them; says on stderr how they paired and what got worse");
    cmd->add_option("--fail-if-worse", o->failIfWorse,
                    "With --baseline: exit 3 when any row is worse than in the baseline by more than "
                    "METRIC=MARGIN, in the metric's unit (snr=3: 3 dB); repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--csv", o->csv, "Write the table as CSV (atomically; - for standard output)");
    cmd->add_option("--json", o->json, "Write the JSON report (atomically; - for standard output)");
    cmd->add_option("--markdown", o->markdown, "Write a Markdown report (atomically; - for standard output)");
    cmd->add_option(
        "--model-explorer", o->modelExplorer,
        "Write Model Explorer node-data overlays (SNR, rel. L2, time, time share) into this folder, "
        "keyed by the ETRecord adapter's node ids (docs/profiling.md)");
    cmd->callback([o, &exitCode] { exitCode = runCompare(*o); });
}

} // namespace gapscope::cli
