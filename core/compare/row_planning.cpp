#include "core/compare/row_planning.h"

#include "core/backends/backend_conventions.h"
#include "core/compare/element_plan.h"
#include "core/metrics/operand.h"

#include <optional>
#include <string>
#include <vector>

namespace gapscope {

namespace {

struct OutputOfShape {
    std::vector<std::size_t> candidates; // the reference outputs of the logged tensor's shape
    std::string shape;                   // the logged tensor's
};

// The outputs of a several-output record whose reference tensor has the logged
// tensor's shape (size-1 dimensions aside, as planElement compares them).
std::optional<OutputOfShape> outputOfShape(const AotCapture& capture, const CaptureRecord& rec,
                                           const Tensor& logged) {
    OutputOfShape out;
    out.shape = shapeText(logged.sizes);
    const auto want = withoutOnes(logged.sizes);
    for (std::size_t e = 0; e < rec.outputs.size(); ++e) {
        const auto& v = rec.outputs[e];
        if (v.kind != CaptureValue::Kind::Tensor)
            continue;
        const auto* t = capture.tensor(v);
        if (t && withoutOnes(t->shape) == want)
            out.candidates.push_back(e);
    }
    return out;
}

} // namespace

ComparisonRow planRow(const AlignedPair& pair, std::size_t index, const EtDump& dump,
                      const AotCapture& capture, const OpNamesWithin& names, RowPlan& plan) {
    ComparisonRow row;
    RowIdentity id;
    row.index = index;
    id.pair = &pair;
    id.aot_debug_handle = pair.handles;
    id.aot_ops = names.aot(pair.handles);
    id.runtime_ops = names.runtime(pair.handles);
    row.instruction_id = pair.runtime->instruction_id;
    row.output_index = pair.output_index;
    row.selection = pair.selection;
    plan.row = row.index;
    const CaptureRecord& rec = *pair.aot.record;
    const std::string& backend = pair.runtime->event->resolved.backend;
    if (!pair.runtime_value_valid) {
        row.status = RowStatus::Invalid;
        row.reason = pair.problem;
        row.in_executorch = false;
    } else if (!pair.reference_elements.empty()) {
        // ExecuTorch raises or skips here: it compares a whole sequence or nothing.
        row.in_executorch = false;
        const auto& items = pair.runtime_value.items;
        std::string which;
        for (std::size_t k = 0; k < items.size(); ++k) {
            const auto e = static_cast<std::size_t>(pair.reference_elements[k]);
            id.plans.push_back(planElement(dump, capture, &rec, e, rec.outputs[e], items[k], backend));
            which += (k ? ", " : "") + std::to_string(e);
        }
        row.reason = items.size() == rec.outputs.size()
                         ? std::string(backendConventions(backend).label) + " logged the node's " +
                               std::to_string(items.size()) +
                               " outputs as separate tensors; compared output by output"
                         : "the device logged output" + std::string(items.size() > 1 ? "s " : " ") + which +
                               " of the node's " + std::to_string(rec.outputs.size()) +
                               "; the other reference outputs have no device counterpart";
    } else if (rec.sequence) {
        row.in_executorch = rec.outputs.size() <= 1;
        if (!row.in_executorch)
            row.reason = "the reference returned " + std::to_string(rec.outputs.size()) +
                         " outputs; ExecuTorch skips such rows, Gapscope compares them element for element";
        const auto& items = pair.runtime_value.items;
        // One tensor logged for a node of several outputs: a recurrent op's
        // decomposition (lstm → its output sequence, the last op of the group
        // being a cat; gru → a permute) logs the one result its last op makes.
        // Which output it is: the one whose shape it has, when only one has it.
        const RuntimeValue* single = pair.runtime_value.isTensor()              ? &pair.runtime_value
                                     : items.size() == 1 && items[0].isTensor() ? &items[0]
                                                                                : nullptr;
        const auto match = single && rec.outputs.size() > 1 ? outputOfShape(capture, rec, *single->tensor)
                                                            : std::optional<OutputOfShape>();
        if (match && match->candidates.size() == 1) {
            const std::size_t e = match->candidates.front();
            id.plans.push_back(planElement(dump, capture, &rec, e, rec.outputs[e], *single, backend));
            row.in_executorch = false;
            row.reason = "the device logged one tensor for the node's " + std::to_string(rec.outputs.size()) +
                         " outputs: compared with output " + std::to_string(e) +
                         ", the only one of its shape (" + match->shape + ")";
        } else if (items.size() != rec.outputs.size()) {
            row.status = RowStatus::Invalid;
            row.reason = std::to_string(rec.outputs.size()) + " reference outputs against " +
                         std::to_string(single ? 1 : items.size()) + " runtime values";
            if (match)
                row.reason += match->candidates.empty()
                                  ? ", and no output has its shape (" + match->shape + ")"
                                  : ", and " + std::to_string(match->candidates.size()) +
                                        " outputs have its shape (" + match->shape +
                                        "): which one it is is unknown";
        } else {
            for (std::size_t i = 0; i < items.size(); ++i)
                id.plans.push_back(planElement(dump, capture, &rec, i, rec.outputs[i], items[i], backend));
        }
    } else {
        id.plans.push_back(
            planElement(dump, capture, &rec, 0, rec.outputs.front(), pair.runtime_value, backend));
        const CaptureRecord* theirs = pair.executorch_record ? pair.executorch_record : &rec;
        if ((pair.executorch_record || pair.executorch_value) && !theirs->sequence)
            plan.executorch_elements.push_back(
                planElement(dump, capture, theirs, 0, theirs->outputs.front(),
                            pair.executorch_value ? *pair.executorch_value : pair.runtime_value, backend));
        if (pair.executorch_merged_into >= 0) {
            row.in_executorch = false;
            row.reason =
                "ExecuTorch keys this output like output " + std::to_string(pair.executorch_merged_into) +
                " (both end in handle " +
                std::to_string(
                    pair.handles[pair.handles.size() - 1 - static_cast<std::size_t>(pair.output_index)]) +
                "): its one row, in output " + std::to_string(pair.executorch_merged_into) +
                "'s place, carries this output's numbers";
        }
    }
    if (!backendConventions(backend).inspector_reads_runs)
        row.in_executorch = false; // ExecuTorch cannot read this backend's run
    for (auto& e : id.plans)
        e.executorch_numbers = row.in_executorch; // no second pass for rows ExecuTorch lacks
    for (const auto& e : id.plans)
        row.dequantized = row.dequantized || e.dequantized;
    row.identity = std::make_shared<const RowIdentity>(std::move(id));
    plan.identity = row.identity;
    return row;
}

} // namespace gapscope
