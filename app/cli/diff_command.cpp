#include "app/cli/diff_command.h"

#include "app/cli/output_file.h"
#include "core/common/atomic_file.h"
#include "core/report/diff_report.h"
#include "core/report/json_stream.h"
#include "core/report/json_text.h"
#include "core/report/report_reader.h"
#include "core/report/safe_text.h"

#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

namespace gapscope::cli {

namespace {

struct DiffOptions {
    std::string a, b;
    std::string metric; // empty: not given (snr, or the one margin's metric)
    std::vector<std::string> failIfWorse;
    int execution = -1;
    std::size_t limit = 30;
    std::string csv, json, markdown;
};

int fail(const std::string& command, const std::string& message, int code = 1) {
    std::cerr << "gapscope-cli " << command << ": " << message << '\n';
    return code;
}

// The runs of two reports that compare with each other: execution k with
// execution k; one run of a report against each of the other's when only one
// side holds several. Empty with `error` set when they cannot be paired.
std::vector<std::pair<const RunSummary*, const RunSummary*>>
pairRuns(const SavedReport& a, const SavedReport& b, int execution, std::string& error) {
    const auto pick = [&](const SavedReport& r, const char* side) -> std::vector<const RunSummary*> {
        if (r.runs.empty()) { // an --all-runs report whose 'runs' is [] (issue 55, class 9)
            if (error.empty())
                error = std::string(side) + " holds no run ('runs' is empty): there is nothing to compare";
            return {};
        }
        if (execution < 0) {
            std::vector<const RunSummary*> all;
            for (const auto& run : r.runs)
                all.push_back(&run);
            return all;
        }
        if (static_cast<std::size_t>(execution) >= r.runs.size()) {
            error = std::string(side) + " holds " + std::to_string(r.runs.size()) +
                    (r.runs.size() == 1 ? " run" : " runs") + ": there is no execution " +
                    std::to_string(execution);
            return {};
        }
        return {&r.runs[static_cast<std::size_t>(execution)]};
    };
    const auto ra = pick(a, "A"), rb = pick(b, "B");
    std::vector<std::pair<const RunSummary*, const RunSummary*>> out;
    if (ra.empty() || rb.empty())
        return out;
    if (ra.size() != rb.size() && ra.size() != 1 && rb.size() != 1) {
        error = "A holds " + std::to_string(ra.size()) + " executions and B " + std::to_string(rb.size()) +
                ": pick one with --execution K";
        return out;
    }
    for (std::size_t k = 0; k < std::max(ra.size(), rb.size()); ++k)
        out.emplace_back(ra[ra.size() == 1 ? 0 : k], rb[rb.size() == 1 ? 0 : k]);
    return out;
}

int runDiff(const DiffOptions& o) {
    const auto metric = findMetric(o.metric.empty() ? "snr" : o.metric);
    if (!metric)
        return fail("diff",
                    "--metric: '" + echoedName(o.metric) + "' is not a metric (" + metricNames() + ")", 2);
    std::vector<MetricThreshold> margins;
    std::string error;
    if (!parseMargins(o.failIfWorse, margins, error))
        return fail("diff", "--fail-if-worse: " + error, 2);
    const std::vector<std::pair<std::string, std::string>> outputs{
        {"--csv", o.csv}, {"--json", o.json}, {"--markdown", o.markdown}};
    if (const auto clash = checkOutputs(outputs))
        return fail("diff", *clash, 2);
    const bool tableOut = !writesToStdout(outputs); // a report on standard output is not mixed with the table
    const auto a = loadSavedReport(o.a);
    if (!a)
        return fail("diff", a.error().describe());
    const auto b = loadSavedReport(o.b);
    if (!b)
        return fail("diff", b.error().describe());
    if (const auto over = refuseOutputsOverInputs(outputs)) // A and B are inputs now
        return fail("diff", *over);
    const auto runs = pairRuns(a.value(), b.value(), o.execution, error);
    if (runs.empty())
        return fail("diff", error, 2);
    if (!o.csv.empty() && runs.size() > 1)
        return fail("diff", "--csv writes one table: pick one execution with --execution K", 2);

    // The ranking follows the one margin when one is given and no --metric.
    // A --metric given, even "snr", is the user's choice (issue 56: it was ignored).
    const Metric ranking = margins.size() == 1 && o.metric.empty() ? margins.front().metric : metric->id;
    // The JSON report streams, pair by pair, as each execution is diffed.
    StreamedOutput jsonOut(o.json);
    JsonStream json([&](std::string_view piece) { jsonOut.write(piece); });
    if (runs.size() > 1) {
        json.beginObject();
        json.member("format", "gapscope.diff");
        json.member("schema_version", 1);
        json.key("executions");
        json.beginArray();
    }
    std::ostringstream csv, markdown;
    std::size_t regressions = 0;
    std::string otherProgram;   // why the margins cannot be judged, when A and B are other programs
    std::string otherReference; // or when their gaps are against different kinds of reference
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const RunDiff d = diffRuns(*runs[k].first, *runs[k].second, ranking, margins);
        if (!d.other_program.empty() && otherProgram.empty()) {
            otherProgram = d.other_program;
            std::cerr << "gapscope-cli diff: warning: " << d.other_program << '\n';
        }
        if (!d.other_reference.empty() && otherReference.empty()) {
            otherReference = d.other_reference;
            std::cerr << "gapscope-cli diff: warning: " << d.other_reference << '\n';
        }
        if (runs.size() > 1 && tableOut)
            std::cout << "== execution " << k << " ==\n";
        if (tableOut)
            writeDiffTable(std::cout, d, o.limit);
        for (const auto& r : d.regressions)
            std::cerr << "worse than the margin"
                      << (runs.size() > 1 ? " at execution " + std::to_string(k) : std::string()) << ": "
                      << describeRegression(d, r) << '\n';
        regressions += d.regressions.size();
        if (jsonOut.wanted())
            writeDiffJson(json, d);
        if (!o.csv.empty() && k == 0)
            writeDiffCsv(csv, d);
        if (!o.markdown.empty())
            writeDiffMarkdown(markdown, d);
    }
    if (jsonOut.wanted()) {
        if (runs.size() > 1) {
            json.end();
            json.end();
        }
        jsonOut.write("\n");
        if (auto err = jsonOut.finish())
            return fail("diff", *err);
    }
    if (auto err = writeOutput(o.csv, csv.str()))
        return fail("diff", *err);
    if (auto err = writeOutput(o.markdown, markdown.str()))
        return fail("diff", *err);
    // A gate over unrelated pairs would pass or trip by chance: not judged.
    if (!margins.empty() && !otherProgram.empty())
        return fail("diff", "--fail-if-worse is not judged: A and B are not runs of one program");
    if (!margins.empty() && !otherReference.empty())
        return fail("diff",
                    "--fail-if-worse is not judged: A and B are measured against different references");
    return regressions > 0 ? 3 : 0;
}

} // namespace

bool parseMargins(const std::vector<std::string>& texts, std::vector<MetricThreshold>& out,
                  std::string& error) {
    for (const auto& text : texts) {
        const auto margin = parseThreshold(text, error);
        if (!margin)
            return false;
        if (!(margin->value >= 0) || std::isinf(margin->value)) {
            error = "a margin is a finite amount of 0 or more in the metric's unit (snr=3: 3 dB), not " +
                    echoedName(text);
            return false;
        }
        out.push_back(*margin);
    }
    return true;
}

int checkBaseline(const std::vector<RunSummary>& current, bool allRuns, const SavedReport& old,
                  const std::string& baselinePath, const std::vector<MetricThreshold>& margins) {
    if (old.all_runs != allRuns || (allRuns && old.runs.size() != current.size()))
        return fail("compare", "--baseline: " + echoedName(baselinePath) + " holds " +
                                   std::to_string(old.runs.size()) +
                                   (old.all_runs ? " runs (--all-runs)" : " run") + ", this compare " +
                                   std::to_string(current.size()) + ": compare like with like"),
               -1;
    // Another program's baseline is refused before its rows are paired: pairing
    // 10^6 rows against a few took minutes for nothing (issue 55, class 8).
    for (std::size_t k = 0; k < current.size(); ++k)
        if (const auto why = otherProgram(old.runs[k], current[k]))
            return fail("compare", "--baseline: " + *why + ": compare like with like"), -1;
    int count = 0;
    for (std::size_t k = 0; k < current.size(); ++k) {
        const RunDiff d = diffRuns(old.runs[k], current[k],
                                   margins.empty() ? Metric::Snr : margins.front().metric, margins);
        if (!d.other_program.empty())
            return fail("compare", "--baseline: " + d.other_program + ": compare like with like"), -1;
        if (!d.other_reference.empty())
            return fail("compare", "--baseline: " + d.other_reference), -1;
        const std::string at = allRuns ? " at execution " + std::to_string(k) : std::string();
        std::cerr << "gapscope-cli compare: baseline" << at << ": " << d.match.matched << " rows paired by "
                  << (d.match.by_handle ? "debug handle" : "op, code location, shape and order") << ", "
                  << d.match.a_only << " only in the baseline, " << d.match.b_only << " only now\n";
        for (const auto& r : d.regressions)
            std::cerr << "worse than the baseline" << at << ": " << describeRegression(d, r) << '\n';
        count += static_cast<int>(d.regressions.size());
    }
    return count;
}

void addDiffCommand(CLI::App& app, int& exitCode) {
    auto o = std::make_shared<DiffOptions>();
    auto* cmd = app.add_subcommand(
        "diff", "Compare two saved JSON reports (compare --json) without their input files: rows paired "
                "across the runs, each side's metrics and the difference");
    cmd->add_option("A", o->a, "The first report (the baseline)")->required();
    cmd->add_option("B", o->b, "The other report")->required();
    cmd->add_option("--metric", o->metric, "The metric that ranks the rows (default snr)");
    cmd->add_option("--fail-if-worse", o->failIfWorse,
                    "Exit 3 when any row of B is worse than its partner in A by more than METRIC=MARGIN, in "
                    "the metric's unit (snr=3: 3 dB); repeatable")
        ->allow_extra_args(false); // one value each: `--fail-if-worse snr=3 A.json B.json` keeps its reports
    cmd->add_option("--execution", o->execution,
                    "Of an --all-runs report, compare this execution (default: each with its own)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--limit", o->limit, "How many pairs the terminal table shows (default 30)");
    cmd->add_option("--csv", o->csv, "Write every pair as CSV, the worst first (atomically)");
    cmd->add_option("--json", o->json, "Write the diff as JSON (atomically)");
    cmd->add_option("--markdown", o->markdown, "Write a Markdown report (atomically)");
    cmd->callback([o, &exitCode] { exitCode = runDiff(*o); });
}

} // namespace gapscope::cli
