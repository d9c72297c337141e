// compareProgramOutputs (declared in comparison.h): the program's outputs on
// the device against the capture's reference outputs, apart from the rows.
#include "core/align/inspector_events.h"
#include "core/compare/comparison.h"
#include "core/compare/run_checks.h"
#include "core/compare/tap_rows.h"

#include <algorithm>

namespace gapscope {

std::vector<RuntimeValue> deviceOutputs(const EtDump& dump, const Comparison& c) {
    if (c.saved_outputs) {
        const auto executions = executionsOf(dump, c.method, c.run_methods, true);
        const auto at = std::find(executions.begin(), executions.end(), c.run);
        // A run that is no execution of the method (asked with --run) is the file's first.
        const std::size_t execution =
            at == executions.end() ? 0 : static_cast<std::size_t>(at - executions.begin());
        return c.saved_outputs->outputs(execution);
    }
    return c.run < dump.runs.size() ? flatProgramOutputs(dump.runs[c.run]) : std::vector<RuntimeValue>{};
}

std::vector<OutputComparison> compareProgramOutputs(const EtDump& dump, const AotCapture& capture,
                                                    const Comparison& c) {
    std::vector<OutputComparison> out;
    if (!capture.reference_outputs || (!c.saved_outputs && c.run >= dump.runs.size()))
        return out;
    const auto& reference = *capture.reference_outputs;
    const auto flat = deviceOutputs(dump, c);
    const auto taps = tappedOutputs(capture); // rows of their own (tap_rows.h)
    for (std::size_t i = 0; i < std::max(flat.size(), reference.size()); ++i) {
        if (taps.count(i))
            continue;
        OutputComparison oc;
        oc.index = i;
        if (i >= flat.size() || i >= reference.size()) {
            oc.status = RowStatus::Invalid;
            oc.reason =
                (c.saved_outputs ? c.saved_outputs->path() + " holds " : std::string("the device logged ")) +
                std::to_string(flat.size()) + " program outputs, the reference has " +
                std::to_string(reference.size());
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
