#include "delegate_granularity.h"

#include <algorithm>
#include <set>

namespace gapscope {

std::optional<std::string> delegateGranularityNote(const Comparison& c, const AotCapture& capture) {
    std::set<std::vector<std::int64_t>> groups; // a delegate with several outputs has a row per output
    std::size_t ops = 0;
    for (const auto& row : c.rows) {
        // The delegate's call, with the copies the program runs around it
        // (_to_dim_order_copy) in the same group.
        if (std::find(row.id().runtime_ops.begin(), row.id().runtime_ops.end(), "DELEGATE_CALL") ==
                row.id().runtime_ops.end() ||
            !groups.insert(row.id().runtimeDebugHandle()).second)
            continue;
        const std::set<std::int64_t> inside(row.id().runtimeDebugHandle().begin(),
                                            row.id().runtimeDebugHandle().end());
        const auto within = static_cast<std::size_t>(
            std::count_if(capture.records.begin(), capture.records.end(), [&](const CaptureRecord& r) {
                return std::all_of(r.debug_handle.begin(), r.debug_handle.end(),
                                   [&](std::int64_t h) { return inside.count(h) > 0; });
            }));
        if (within > 1)
            ops += within;
        else
            groups.erase(row.id().runtimeDebugHandle());
    }
    if (groups.empty())
        return std::nullopt;
    const bool one = groups.size() == 1;
    const std::string what = std::to_string(groups.size()) + (one ? " delegate" : " delegates") +
                             " logged only " + (one ? "its" : "their") + " outputs, so " +
                             (one ? "its rows stand" : "their rows stand") + " for " + std::to_string(ops) +
                             " reference ops: ";
    // Taps see inside (issue 58): the rows nested under the delegates.
    const auto taps = static_cast<std::size_t>(std::count_if(
        c.rows.begin(), c.rows.end(), [](const ComparisonRow& r) { return r.tap && r.inside; }));
    if (taps > 0)
        return what + std::to_string(taps) + (taps == 1 ? " tap" : " taps") +
               " (ExecuTorch's intermediate-output tap) show ops inside, on the device's own numbers: the "
               "rows "
               "nested under " +
               (one ? "it" : "them") + " (docs/your-model.md, \"Inside a delegate, on the device\")";
    // Against the host twin's outputs (gapscope-capture twin) the coarse rows are the point.
    if (capture.reference_graph == std::optional<std::string>(kHostTwinRuntimeGraph))
        return what + "each row is how far the delegate's kernels are from the host's on the same program; "
                      "the twin's own session shows which op loses the accuracy (docs/your-model.md)";
    return what +
           "how far each delegate's output drifts is measured, not which op inside it loses the accuracy. "
           "For one "
           "row per op, run the same program without delegates on this machine (gapscope-capture twin "
           "ETRECORD "
           "OUTDIR) and open OUTDIR; this run against OUTDIR/host_outputs.gscap.safetensors then shows each "
           "delegate's own kernel error (docs/your-model.md)";
}

} // namespace gapscope
