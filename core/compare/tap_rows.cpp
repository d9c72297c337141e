#include "core/compare/tap_rows.h"

#include "core/align/inspector_events.h"
#include "core/compare/comparison.h"
#include "core/compare/findings.h"
#include "core/metrics/stats_bounds.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace gapscope {

namespace {

// A reducer writes a few numbers per op; more than this is no reducer's output
// (and reading it value by value would be a tensor's work).
constexpr std::uint64_t kMaxReducedValues = 4096;

// Where taps nest, indexed once over the alignment's rows (not once per tap:
// a tapped LLM has thousands of taps over thousands of rows).
class Holders {
public:
    explicit Holders(const Comparison& c) : m_c(c) {
        for (const auto i : executionOrder(c)) { // the alignment's rows, in execution order
            for (const auto h : c.rows[i].id().aot_debug_handle) {
                auto& rows = m_rowsOfHandle[h];
                if (rows.empty() || rows.back() != i)
                    rows.push_back(i);
            }
            auto& last = m_lastOfInstruction[c.rows[i].instruction_id];
            last = std::max(last, i);
        }
    }
    // The first row in execution order whose handles hold every handle of the tapped op's.
    std::optional<std::size_t> holding(const std::vector<std::int64_t>& handle) const {
        const auto it = handle.empty() ? m_rowsOfHandle.end() : m_rowsOfHandle.find(handle.front());
        if (it == m_rowsOfHandle.end())
            return std::nullopt;
        for (const auto i : it->second) {
            const auto& held = m_c.rows[i].id().aot_debug_handle;
            if (std::all_of(handle.begin() + 1, handle.end(), [&](std::int64_t h) {
                    return std::find(held.begin(), held.end(), h) != held.end();
                }))
                return i;
        }
        return std::nullopt;
    }
    // The last row of an instruction (a delegate call's last output row).
    std::size_t lastOf(std::int32_t instruction) const { return m_lastOfInstruction.at(instruction); }

private:
    const Comparison& m_c;
    std::unordered_map<std::int64_t, std::vector<std::size_t>> m_rowsOfHandle;
    std::unordered_map<std::int32_t, std::size_t> m_lastOfInstruction;
};

std::vector<double> valuesOf(const Operand& operand) {
    std::vector<double> out(static_cast<std::size_t>(operand.numel));
    if (!out.empty())
        operand.decode(0, out.size(), out.data());
    return out;
}

// A reduced tap: its fields side by side, and for STATS what they prove.
void compareFields(const CaptureTap& tap, const ElementPlan& plan, ComparisonRow& row, TapRow& info) {
    if (!plan.measurable()) {
        row.status = plan.status;
        row.reason = plan.reason;
        return;
    }
    if (plan.reference.numel > kMaxReducedValues || plan.runtime.numel != plan.reference.numel) {
        row.status = RowStatus::Invalid;
        row.reason = "the " + tap.reducer + " tap holds " + std::to_string(plan.reference.numel) +
                     " values on the reference and " + std::to_string(plan.runtime.numel) +
                     " on the device: not one reducer's output";
        return;
    }
    TapFields fields;
    fields.reference = valuesOf(plan.reference);
    fields.runtime = valuesOf(plan.runtime);
    fields.names = tap.fields;
    if (fields.names.size() != fields.reference.size()) {
        row.status = RowStatus::Invalid;
        row.reason = "the tap names " + std::to_string(tap.fields.size()) + " fields but holds " +
                     std::to_string(fields.reference.size()) + " values";
        return;
    }
    info.fields = std::move(fields);
    const auto reference = tensorStats(info.fields->names, info.fields->reference);
    const auto runtime = tensorStats(info.fields->names, info.fields->runtime);
    if (tap.reducer != CaptureTap::kStats || !reference || !runtime) {
        row.reason = "reducer " + tap.reducer +
                     ": its fields are compared one by one; Gapscope bounds the gap only from STATS";
        return;
    }
    const auto bounds = statsBounds(*reference, *runtime);
    if (!bounds) {
        row.reason = "the statistics cannot tell the tensor's size (an all-zero reference, or the device's "
                     "statistics of another size): its fields are compared one by one, no bound";
        return;
    }
    row.gaps = {bounds->metrics};
    row.bounds = true;
    row.reason = "statistics only (STATS): each number is what they prove, a bound (SNR at most, errors at "
                 "least), docs/metrics.md";
}

} // namespace

std::set<std::size_t> tappedOutputs(const AotCapture& capture) {
    std::set<std::size_t> out;
    for (const auto& t : capture.taps)
        out.insert(t.output_index);
    return out;
}

void planTapRows(const EtDump& dump, const AotCapture& capture, Comparison& c,
                 std::vector<RowPlan>& pending) {
    if (capture.taps.empty() || !capture.reference_outputs || (!c.saved_outputs && c.run >= dump.runs.size()))
        return;
    const auto outputs = deviceOutputs(dump, c);
    const auto& reference = *capture.reference_outputs;
    const Holders holders(c); // before any tap is a row
    for (std::size_t t = 0; t < capture.taps.size(); ++t) {
        const CaptureTap& tap = capture.taps[t];
        ComparisonRow row;
        row.index = c.rows.size();
        row.in_executorch = false;
        auto info = std::make_shared<TapRow>();
        info->index = t;
        info->spec = tap;
        row.output_index = static_cast<int>(t);
        row.instruction_id = std::numeric_limits<std::int32_t>::max();
        if (tap.debug_handle)
            if (const auto holder = holders.holding(*tap.debug_handle)) {
                row.inside = *holder;
                row.instruction_id = c.rows[*holder].instruction_id;
                info->after_row = holders.lastOf(row.instruction_id); // its rows share the instruction
            }
        RowIdentity id;
        if (tap.debug_handle)
            id.aot_debug_handle = *tap.debug_handle;
        id.aot_ops = {tap.node_name};
        id.runtime_ops = {"tap " + tap.reducer + " (" +
                          (c.saved_outputs ? "saved output " : "program output ") +
                          std::to_string(tap.output_index) + ")"};
        const bool logged = tap.output_index < outputs.size();
        if (logged) {
            id.plans.push_back(planElement(dump, capture, nullptr, tap.output_index,
                                           reference[tap.output_index], outputs[tap.output_index]));
            id.plans.back().executorch_numbers = false;
        }
        const ElementPlan* plan = logged ? &id.plans.back() : nullptr;
        if (!plan) {
            row.status = RowStatus::Invalid;
            row.reason = c.saved_outputs
                             ? c.saved_outputs->path() + " holds " + std::to_string(outputs.size()) +
                                   " outputs for this execution: none at the tap's index " +
                                   std::to_string(tap.output_index) + " (are they the tapped program's?)"
                             : "the device logged " + std::to_string(outputs.size()) +
                                   " program outputs: none at the tap's index " +
                                   std::to_string(tap.output_index) +
                                   " (is the ETDump of the tapped program, logging program outputs?)";
        } else if (!tap.fullTensor()) {
            compareFields(tap, *plan, row, *info);
        }
        row.tap = std::move(info);
        row.identity = std::make_shared<const RowIdentity>(std::move(id));
        if (plan && tap.fullTensor()) {
            RowPlan measure;
            measure.row = row.index;
            measure.identity = row.identity;
            if (plan->measurable()) {
                row.measured = false;
                pending.push_back(std::move(measure));
                c.rows.push_back(std::move(row));
                continue;
            }
            c.rows.push_back(std::move(row));
            applyMeasurement(c, measureRow(measure)); // its status: nothing to compute
            continue;
        }
        c.rows.push_back(std::move(row));
    }
}

} // namespace gapscope
