#pragma once

#include "core/capture/aot_capture.h"
#include "core/compare/comparison_value.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// The stages a model passes from PyTorch to the device, in that order (issue 59):
// every reference a session holds is one of them, and the device is the last.
// The order is the issue's: the backend's passes before the quantised
// simulation, since QNN's lowered graph quantises the weights and keeps the
// activations in float, and PT2E's simulation quantises both.
enum class LadderStage {
    FloatModel,   // the float model before quantisation (gapscope-capture float)
    AtenGraph,    // the ETRecord's exported program, float
    EdgeGraph,    // the ETRecord's edge program, float
    BackendGraph, // after the backend's passes (QNN's edge_after_transform)
    QuantAten,    // PT2E's quantised simulation, the exported program
    QuantEdge,    // PT2E's quantised simulation, the edge program
    HostKernels,  // the same program on this machine's kernels, no delegates (host twin)
    Device,       // the runtime's values (the ETDump)
};

// The stage a capture's reference stands at; none for a run of a module whose
// graph is not named (its place cannot be told).
std::optional<LadderStage> ladderStageOf(const AotCapture& capture);
// "float model", "ATen graph", ...
std::string ladderStageLabel(LadderStage stage);
// What the step into `stage` does: "export", "quantisation", "device kernels".
std::string ladderStepLabel(LadderStage stage);
// Whether a stage already holds the activations' quantisation.
bool quantizesActivations(LadderStage stage);
// A short, stable name for reports: "float", "aten", "edge", "backend",
// "quant_aten", "quant_edge", "host", "device".
std::string ladderStageKey(LadderStage stage);

// A step of at least this SNR loses nothing worth naming: float32 rounding
// through a network stays above it (XNNPACK fp32 against the edge graph reads
// 115-120 dB on the e2e conv net), while 8-bit quantisation reads 15-45 dB and
// 16-bit 50-60 (docs/metrics.md, "Stage ladder").
constexpr double kLadderLosslessDb = 80.0;

// One number of the ladder, or why there is none.
struct LadderCell {
    std::optional<double> snr; // dB, ExecuTorch's SNR (the worst element of a row)
    std::string problem;       // when snr is null: why
};

struct LadderRow {
    // The row of the comparison the ladder was built on (its index), or a program
    // output (`output`, its index).
    std::size_t row = 0;
    bool output = false;
    std::string name;
    // Per stage (StageLadder::stages, the device last): this stage's value
    // against the first stage's (the float model when there is one). The first
    // is the stage against itself (no number), the last the device's (which is
    // the single-reference comparison's with the first stage's capture).
    std::vector<LadderCell> against_first;
    // Per step (stages[i] → stages[i + 1]): the SNR of stage i + 1 against
    // stage i, the gap that step adds. The last step's is the device against the
    // last reference: the single-reference comparison's with that capture.
    std::vector<LadderCell> steps;
    // Per reference stage: the device against it, as that single-reference
    // comparison gives it (the numbers it equals).
    std::vector<LadderCell> device;
    // The step with the lowest SNR: where this op loses the most. None when no
    // step has a number below kLadderLosslessDb (every step changed nothing, or
    // no more than float rounding, or none was measured).
    std::optional<std::size_t> worst_step;
    // Each step's share of the noise the steps add (10^(−snr/10) normalised), in
    // [0, 1]; null where the step has no number.
    std::vector<std::optional<double>> share;
};

struct LadderReference {
    LadderStage stage = LadderStage::FloatModel;
    std::string capture_path;
    std::string graph; // the capture's reference_graph
    const AotCapture* capture = nullptr;
    const Comparison* comparison = nullptr; // the device against this capture
};

struct StageLadder {
    std::string method;
    std::size_t run = 0;
    std::vector<LadderStage> stages;        // references in ladder order, then Device
    std::vector<std::string> capture_paths; // per reference stage
    std::string device_path;                // the ETDump the device's values are read from
    std::vector<std::string> graphs;        // per reference stage
    // Per step, what it does (ladderStepLabel, but the device's step says what
    // else it holds: a quantised program's activation quantisation when no
    // quantised simulation stands before it).
    std::vector<std::string> step_labels;
    std::vector<LadderRow> rows; // the base comparison's rows, then the program outputs
    // Captures left out, and why (another method or step, a stage held twice,
    // a reference whose stage cannot be told).
    std::vector<std::string> notes;
    // How many rows each step lost the most on (per step).
    std::vector<std::size_t> worst_counts;
};

// Builds the ladder over `base`'s rows (the comparison a table shows): each
// reference's comparison is of the same run, against its own capture, and its
// rows are found by runtime debug handle and output. References are sorted into
// ladder order; a stage given twice keeps the first given. The comparisons'
// element plans view the captures' tensors, which must outlive the call only.
// `quantized`: the program quantises its activations (the device's step then
// holds that quantisation unless a quantised simulation stands before it).
StageLadder buildStageLadder(const Comparison& base, std::vector<LadderReference> references,
                             bool quantized = false);

} // namespace gapscope
