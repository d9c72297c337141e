#pragma once

#include "core/align/alignment.h"
#include "core/capture/aot_capture.h"
#include "core/compare/comparison_value.h"
#include "core/compare/reference_probe.h"
#include "core/compare/row_status.h"
#include "core/profile/op_latency.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// How closely two probes agree, in dB: 10·log10(Σa² / Σ(a − b)²) over the probed
// values; +∞ when equal. Null when either is unknown. −∞ when the element counts
// differ or a non-finite value is not matched on the other side.
std::optional<double> probeAgreementDb(const ReferenceProbe& a, const ReferenceProbe& b);
// Two references agree when their probes do to this level or better: one tensor
// under quantisation noise (a float model against its quantised simulation)
// agrees to 20-40 dB, two unrelated tensors to about 0 dB.
constexpr double kReferencesAgreeDb = 10.0;

// What a comparison of runs (A/B, a baseline, two saved reports) reads of one
// row: who it is, and its numbers. The same whether it comes from a session
// compared now (summarizeRun) or from a saved JSON report (readReport), so a
// baseline in CI matches rows exactly as the app and `gapscope-cli diff` do.
struct RunRow {
    std::size_t index = 0; // the row's index in its own run
    HandleTuple aot_debug_handle;
    int output_index = 0;
    std::vector<std::string> aot_ops;
    // The reference node whose output the row compares (comparedNode): one op
    // of a fused group's many.
    std::string compared_node;
    // Its debug handle: its place in its reference graph's order; -1 unknown.
    std::int64_t compared_handle = -1;
    std::string name;   // displayOpName: what messages call it
    std::string shapes; // the reference shapes, "1x8x16x16; 1x8": "" unknown
    // Where the row's op comes from in the model's code (rowSource); "" unknown.
    std::string source;
    RowStatus status = RowStatus::Ok;
    std::string reason;
    // One per metricCatalog() entry, in its order: the row's value (rowMetric).
    std::vector<std::optional<double>> metrics;
    // Its time (RowLatency: median over the runs, ms) and share of the run's;
    // none without a timing (a report of schema 2, an untimed row).
    std::optional<double> time_ms, time_share;
    ReferenceProbe reference_probe;
    // A tap's row (issue 58): never the same op row as the delegate output of
    // the same node, which it sits beside. `bounds`: its metrics are what
    // statistics prove (an SNR at most, errors at least; docs/metrics.md).
    bool tap = false;
    bool bounds = false;
};

struct RunSummary {
    std::string label; // a name for the run: the report's or the capture's file
    std::string method;
    std::size_t run = 0;
    // Which reference graph the debug handles index (referenceProgramDigest);
    // "" when unknown (a report of schema version 1). Two runs with the same
    // digest number the same nodes the same way.
    std::string reference_program;
    // What its gaps are measured against (referenceKindLabel: "float model",
    // "quantised simulation (PT2E)"); "" when unknown (reports before it).
    std::string reference_kind;
    std::vector<RunRow> rows;
};

// Which reference a run is measured against: its graph's digest and its kind.
struct RunReference {
    std::string program; // referenceProgramDigest
    std::string kind;    // referenceKindLabel
};
RunReference runReference(const AotCapture* capture);

// The digest of what a capture's debug handles name: the reference graph, the
// method, and every record's handles and ops. Two captures of one edge program
// (two builds, two recipes that build the same graph) agree; two lowerings that
// number their graphs differently do not (docs/compare-runs.md).
std::string referenceProgramDigest(const AotCapture& capture);

// "model.py:41 > conv.py:565": the frames of the stack trace ExecuTorch keeps
// for the row's compared node (its `stack_trace` metadata), file names without
// folders so that two machines agree; "" when the capture holds none.
std::string rowSource(const ComparisonRow& row);
// The reference node a row's value is compared with: the last computing op of
// the capture record it is paired with (a delegate group's rows each compare one
// of the group's outputs), else of its own ops.
std::string comparedNode(const ComparisonRow& row);
std::int64_t comparedHandle(const ComparisonRow& row);
std::string summarizeStackTrace(const std::string& trace);

// The row's reference probe: the one read when it was measured, else from its
// measurable elements' reference operands.
ReferenceProbe referenceProbe(const ComparisonRow& row);

// The rows of a comparison as a RunSummary, with their times when `latency` is given.
RunSummary summarizeRun(const Comparison& c, std::string label, RunReference reference,
                        const ComparisonLatency* latency = nullptr);

} // namespace gapscope
