#pragma once

#include "core/metrics/operand.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One channel of a per-channel breakdown.
struct ChannelGap {
    double mse = 0;
    double max_abs = 0;
    double snr = 0;
};

// Every number Gapscope reports for one compared pair (formulas in
// docs/metrics.md). a = reference (AOT), b = runtime, d = a − b, all float64
// after ExecuTorch's conversion (NaN→0, ±Inf→±max when a side holds a NaN).
struct GapMetrics {
    // ExecuTorch's.
    double mse = 0;
    double l1 = 0;
    double snr = 0;
    // Ours.
    double mean_abs = 0;
    double max_abs = 0;
    std::vector<std::int64_t> max_abs_index; // coordinates in the compared (broadcast) shape
    double rel_l2 = 0;                       // ‖d‖ / ‖a‖
    double cosine = 0;                       // a·b / (‖a‖‖b‖)
    double sqnr = 0;                         // 20·log10(‖a‖ / ‖d‖)
    // 20·log10(‖b‖ / ‖d‖): the SQNR of ExecuTorch's tap_compare (torch.ao's
    // compute_sqnr(runtime, reference), the device's tensor as the signal).
    double runtime_sqnr = 0;
    std::uint64_t nan_aot = 0, inf_aot = 0, nan_runtime = 0, inf_runtime = 0;
    std::uint64_t elements = 0;
    // Positions where reference and runtime hold the same infinity: they count as
    // equal (difference 0) and add nothing to the signal sums (docs/metrics.md).
    std::uint64_t agreeing_infinities = 0;
    bool broadcast = false; // shapes differed but torch-broadcast
    std::vector<std::int64_t> compared_shape;
    // When a quantisation scale is known.
    std::optional<double> rmse_steps;    // √mse / scale
    std::optional<double> max_abs_steps; // max|d| / scale
    // Share of elements the device clipped: at qmin or qmax while the reference lies
    // more than half a quantisation step beyond the value that limit stands for.
    std::optional<double> saturation;
    // For logits-shaped outputs (last dim ≥ 2): share of rows whose arg-max agrees,
    // and whose top-5 sets agree.
    std::optional<double> top1_agreement;
    std::optional<double> top5_agreement;
    // Filled when GapOptions::breakdown_axis is set: one entry per index along it.
    std::vector<ChannelGap> per_channel;
};

struct GapOptions {
    OperandTransform runtime_transform;
    std::optional<std::int64_t> qmin, qmax; // for saturation (integer runtime tensors only)
    // The quantisation step of the compared output, when known (per-tensor scale):
    // errors are also reported in steps even when the runtime value is float.
    std::optional<double> step;
    // Threads for big tensors (0 = all cores, 1 = this thread only).
    unsigned threads = 0;
    // ExecuTorch's arithmetic exactly: the same infinity on both sides gives a NaN
    // difference instead of agreement (for the `executorch` numbers).
    bool executorch_semantics = false;
    // Break the error down along this axis of the compared shape (negative counts
    // from the end, like torch).
    std::optional<std::int64_t> breakdown_axis;
    // Read between blocks of elements: once set, computeGap stops and returns
    // the problem "cancelled" (a superseded view of a many-GB tensor).
    const std::atomic<bool>* cancelled = nullptr;
};

// Computes every metric, or returns why the pair cannot be compared (shapes
// that do not broadcast, transforms that do not fit).
struct GapResult {
    std::optional<GapMetrics> metrics;
    std::string problem;
};

GapResult computeGap(const Operand& aot, const Operand& runtime, const GapOptions& options = {});

// One element of a difference ranking (ElementReader's largestDifferences).
struct ElementDifference {
    std::vector<std::int64_t> index;
    double aot = 0;
    double runtime = 0;
    double difference = 0;
};

} // namespace gapscope
