#pragma once

#include "core/runs/run_diff.h"
#include "core/runs/run_match.h"
#include "core/runs/run_summary.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace gapscope {

class JsonStream;

// Two runs compared (`gapscope-cli diff`, `compare --baseline`): A is the
// baseline or the first run, B the other. `metric` ranks the pairings.
struct RunDiff {
    const RunSummary* a = nullptr;
    const RunSummary* b = nullptr;
    RunMatch match;
    Metric metric = Metric::Snr;
    std::vector<Regression> regressions; // when margins were given
    // Why A and B seem to be runs of different programs (otherProgram), when
    // they do: their pairs are then no comparison, and no regression is counted.
    std::string other_program;
    // Why A's and B's gaps do not measure one thing (otherReference), when they
    // do not: the margins are then not judged.
    std::string other_reference;
    // The pairings whose two references are not one tensor (RowPairing::referencesDisagree).
    std::size_t references_disagree = 0;
};

RunDiff diffRuns(const RunSummary& a, const RunSummary& b, Metric metric,
                 const std::vector<MetricThreshold>& margins = {});
// The same over runs already paired (the app's A/B tab): `runs` must outlive it.
RunDiff diffRuns(const ComparedRuns& runs, Metric metric);

// The diff document (format "gapscope.diff", docs/compare-runs.md): both runs,
// every pairing in execution order with each side's values and the difference
// for every metric, the ranking and the regressions; written pair by pair.
void writeDiffJson(JsonStream& out, const RunDiff& d);
// One line per pairing, ranked (the worst first), the metric's A, B, Δ and
// worse-by, then each side's other metrics.
void writeDiffCsv(std::ostream& out, const RunDiff& d);
void writeDiffMarkdown(std::ostream& out, const RunDiff& d);
// The terminal table: the `limit` worst pairings, then the rows without a partner.
void writeDiffTable(std::ostream& out, const RunDiff& d, std::size_t limit);
// The whole diff in one of its formats, as `gapscope-cli diff` writes it: what
// the app's A/B export and its report's ab.csv/ab.json/ab.md write.
enum class DiffFormat { Csv, Json, Markdown };
std::string diffText(const RunDiff& d, DiffFormat format);
// "row 4 (conv2d) → row 9 (aten_convolution_default): SNR dB 41.2 → 30.1, 11.1 worse (margin 3)"
std::string describeRegression(const RunDiff& d, const Regression& r);

} // namespace gapscope
