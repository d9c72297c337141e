// compareProgramOutputs (declared in comparison.h): the program's outputs on
// the device against the capture's reference outputs, apart from the rows.
#include "core/align/inspector_events.h"
#include "core/compare/comparison.h"
#include "core/compare/tap_rows.h"

#include <algorithm>

namespace gapscope {

std::vector<OutputComparison> compareProgramOutputs(const EtDump& dump, const AotCapture& capture,
                                                    std::size_t run) {
    std::vector<OutputComparison> out;
    if (!capture.reference_outputs || run >= dump.runs.size())
        return out;
    const auto& reference = *capture.reference_outputs;
    const auto flat = flatProgramOutputs(dump.runs[run]);
    const auto taps = tappedOutputs(capture); // rows of their own (tap_rows.h)
    for (std::size_t i = 0; i < std::max(flat.size(), reference.size()); ++i) {
        if (taps.count(i))
            continue;
        OutputComparison oc;
        oc.index = i;
        if (i >= flat.size() || i >= reference.size()) {
            oc.status = RowStatus::Invalid;
            oc.reason = "the device logged " + std::to_string(flat.size()) +
                        " program outputs, the reference has " + std::to_string(reference.size());
        } else {
            auto plan = planElement(dump, capture, nullptr, i, reference[i], flat[i]);
            plan.executorch_numbers = false; // program outputs are not in ExecuTorch's table
            auto result = measureElement(plan);
            oc.status = result.status;
            oc.reason = result.reason;
            oc.shape = plan.shape;
            oc.dtype = plan.dtype;
            oc.metrics = std::move(result.metrics);
        }
        out.push_back(std::move(oc));
    }
    return out;
}

} // namespace gapscope
