// `gapscope-cli compare --all-runs`: every execution of the method, each against
// its own step capture (compare_options.h).
#include "app/cli/compare_options.h"
#include "app/cli/diff_command.h"
#include "app/cli/gate_lines.h"
#include "app/cli/output_file.h"
#include "app/cli/repeated_warnings.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/row_name.h"
#include "core/compare/run_checks.h"
#include "core/report/compare_report.h"
#include "core/report/json_stream.h"
#include "core/report/json_text.h"
#include "core/report/safe_text.h"
#include "core/report/text_format.h"
#include "core/runs/run_summary.h"
#include "core/runs/step_matrix.h"
#include "core/session/session_steps.h"

#include <filesystem>
#include <iostream>

namespace gapscope::cli {

// --all-runs: every execution of the method, each against its own capture where
// the session offers a capture per step (AotCapture::step), else against the one
// capture with the warnings that says what that means. A line per run on stdout,
// one JSON document with every run's report.
int compareAllRuns(const CompareOptions& o, const SessionFiles& files, SessionOptions options,
                   ReportContext ctx, std::vector<InputProvenance> inputs, const SavedReport* baseline,
                   std::optional<EventsBuilt> events) {
    if (!o.csv.empty() || !o.markdown.empty() || o.run >= 0)
        return compareFailed(
                   "--all-runs compares every run and writes one JSON report (--json): it takes no --run, "
                   "--csv or --markdown"),
               2;
    // Every run over the same parsed inputs (options.workspace): the ETDump,
    // ETRecord and captures are read, and the ETRecord hashed, once for all of them.
    const auto first = loadSessionFiles(files, options, std::move(events));
    if (const auto why = unusableSession(*first, files))
        return compareFailed(*why);
    if (!o.json.empty())
        inputs = withEtRecordDigest(std::move(inputs), *first);
    const auto executions =
        executionsOf(*first->dump, first->comparison->method, first->comparison->run_methods,
                     first->comparison->saved_outputs != nullptr);
    if (executions.empty())
        return compareFailed("the ETDump holds no execution of '" + first->comparison->method +
                             "' with debug events");
    // The report streams run by run (20,000 runs are never one document).
    StreamedOutput jsonOut(o.json);
    JsonStream json([&](std::string_view piece) { jsonOut.write(piece); });
    if (jsonOut.wanted()) {
        json.beginObject();
        json.member("schema_version", kReportSchemaVersion);
        json.member("method", first->comparison->method);
        json.key("runs");
        json.beginArray();
    }
    std::vector<RunSummary> summaries; // the steps, and --baseline
    RepeatedWarnings repeats;
    int tripped = 0;
    // The steps as the app's steps view walks them (forEachStep): a few in
    // parallel, each reported in order as it comes.
    std::optional<int> failed;
    const auto visit = [&](std::size_t k, std::size_t run, const Session& step) {
        const Session* session = &step;
        if (const auto why = unusableSession(*session, files)) {
            failed = compareFailed("run " + std::to_string(run) + ": " + *why);
            return false;
        }
        const Comparison& c = *session->comparison;
        // The provenance names this run's capture.
        std::vector<InputProvenance> described = inputs;
        if (!o.json.empty()) {
            SessionFiles capture;
            capture.capture = session->capture_file;
            const auto digest = hashInputs(capture);
            for (auto& input : described)
                if (input.role == InputRole::Capture && !digest.empty())
                    input = digest.front();
        }
        ReportContext runCtx = reportContextFor(*session, described);
        runCtx.gates = ctx.gates;
        const auto crossing = session->first_divergence;
        std::cout << "run " << run << " (execution " << k
                  << "): " << std::filesystem::path(session->capture_file->path()).filename().string() << ", "
                  << c.rows.size() << (c.rows.size() == 1 ? " row" : " rows") << ", "
                  << (crossing ? "first divergence at row " + std::to_string(crossing->row) + " (" +
                                     displayOpName(c.rows[crossing->row]) + ")"
                               : "no row crosses " + metricName(ctx.threshold.metric) + " " +
                                     number(ctx.threshold.value))
                  << '\n';
        for (const auto& warning : c.warnings)
            if (repeats.firstTime(warning, run))
                std::cerr << "gapscope-cli compare: run " << run << ": warning: " << warning << "\n";
        tripped += sayGateFailures(std::cerr, c, runCtx.gates, o.failOnInvalid);
        summaries.push_back(summarizeRun(c, files.etdump->path(),
                                         {runCtx.reference_program, runCtx.reference_kind},
                                         session->latency.get()));
        if (jsonOut.wanted()) {
            auto report = comparisonToJson(c, runCtx);
            report["execution"] = k;
            json.value(report);
        }
        return true;
    };
    forEachStep(*first, files, options, visit, first.get());
    if (failed)
        return *failed;
    repeats.sayRepeats(std::cerr);
    // Across the steps (docs/compare-runs.md): where the drift first crosses, and its worst.
    const StepMatrix steps = buildStepMatrix(summaries, ctx.threshold.metric, ctx.threshold);
    const auto cell = [&](const StepMatrix::Cell& at) {
        return "execution " + std::to_string(at.step) + " (" + echoedName(steps.ops[at.op]) + ", " +
               metricName(steps.metric) + " " + (at.bound ? boundSign(steps.metric) : "") +
               shortNumber(at.value) + ")";
    };
    std::cout << "steps: "
              << (steps.first_crossing ? "first crossing at " + cell(*steps.first_crossing)
                                       : "no step crosses " + describeThreshold(ctx.threshold))
              << (steps.worst ? "; worst at " + cell(*steps.worst) : std::string()) << '\n';
    if (jsonOut.wanted()) {
        json.end();
        json.end();
        jsonOut.write("\n");
        if (json.replaced())
            std::cerr << "gapscope-cli compare: warning: " << invalidUtf8Warning(o.json) << "\n";
        if (auto err = jsonOut.finish())
            return compareFailed(*err);
    }
    if (baseline) {
        std::vector<MetricThreshold> margins;
        std::string error;
        parseMargins(o.failIfWorse, margins, error); // checked by runCompare
        const int worse = checkBaseline(summaries, true, *baseline, o.baseline, margins);
        if (worse < 0)
            return 1;
        tripped += worse;
    }
    return tripped > 0 ? 3 : 0;
}

} // namespace gapscope::cli
