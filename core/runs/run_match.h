#pragma once

#include "core/runs/run_summary.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// What a pairing of two runs' rows rests on, strongest first
// (docs/compare-runs.md). Debug handles are per program: they pair rows only
// when both runs number the same reference graph.
enum class MatchBasis {
    DebugHandle,     // the same node of one reference graph
    OpSourceShape,   // the same op, from the same code, with the same shape, in order
    OpSource,        // the same op from the same code, in order (shapes differ)
    OpShape,         // the same op with the same shape, in order (no code location to compare)
    OpOrder,         // the same op in the same order, nothing more
    FoldedBatchNorm, // one side folds a BatchNorm into its conv: compared at the BatchNorm's output
    Unmatched,       // on one side only
};
// "debug_handle", "op_source_shape", …: what reports write.
const char* matchBasisName(MatchBasis basis);
// "same debug handle": what a table shows.
const char* matchBasisLabel(MatchBasis basis);

struct RowPairing {
    std::optional<std::size_t> a, b; // positions in each RunSummary::rows; one may be empty
    MatchBasis basis = MatchBasis::Unmatched;
    // What the user should know about this pairing ("B folds batch_norm into
    // its conv", "inside B's fused row 3"); "" when nothing.
    std::string note;
    // How closely A's and B's references agree (probeAgreementDb), when both
    // rows hold a probe.
    std::optional<double> references_db;
    // Below kReferencesAgreeDb the two rows do not compare one tensor: their
    // difference is no comparison. Such a pairing has no Δ and no worse-by, is
    // not ranked and trips no margin; its note says why.
    bool referencesDisagree() const { return references_db && *references_db < kReferencesAgreeDb; }
};

struct RunMatch {
    // Both runs number one reference graph (equal referenceProgramDigest): rows
    // are paired by debug handle. Otherwise by op, code location, shape and order.
    bool by_handle = false;
    // Every row of both runs, once: pairs and rows of one side, in execution order.
    std::vector<RowPairing> pairs;
    std::size_t matched = 0, a_only = 0, b_only = 0;
};

// Pairs the rows of two runs; never drops a row.
RunMatch matchRuns(const RunSummary& a, const RunSummary& b);

// Why two runs are of different programs, or nothing (issue 55, class 3: a
// baseline of a decode loop paired the demo's softmax with the loop's by op and
// order, and tripped the gate by "Infinity"). One reference program is one
// program. Otherwise each run's rows name where their ops come from, outermost
// frame first (the model's own file: demo.py, modeling_llama.py); two runs of
// one model share it whatever the backend, two models share none. Runs whose
// rows name no code location (reports before schema 2) are not judged.
std::optional<std::string> otherProgram(const RunSummary& a, const RunSummary& b);

// Why A's and B's gaps do not measure one thing, or nothing (issue 56): one run
// scored against the float model and the other against its quantised simulation
// differ by the whole quantisation error, which then reads as a backend's
// regression. Runs whose kind is unknown (older reports) are not judged.
std::optional<std::string> otherReference(const RunSummary& a, const RunSummary& b);

} // namespace gapscope
