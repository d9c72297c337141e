#include "core/compare/comparison.h"

#include "core/common/parallel.h"
#include "core/etdump/scalar_type.h"

#include <algorithm>
#include <set>

namespace gapscope {

const char* rowStatusName(RowStatus status) {
    switch (status) {
    case RowStatus::Ok: return "ok";
    case RowStatus::Broadcast: return "broadcast";
    case RowStatus::MissingData: return "missing_data";
    case RowStatus::Invalid: return "invalid";
    }
    return "invalid";
}

namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    if (shape.empty())
        return "scalar";
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? "x" : "") + std::to_string(shape[i]);
    return s;
}

bool isIntegerType(ScalarType t) {
    const auto info = scalarTypeInfo(static_cast<std::int8_t>(t));
    return info && !info->isFloatingPoint && t != ScalarType::Bool;
}

// One element pair: reference value against runtime value.
struct ElementOutcome {
    std::optional<GapMetrics> metrics;
    RowStatus status = RowStatus::Ok;
    std::string reason;
    std::string shape, dtype;
    bool dequantized = false;
};

ElementOutcome compareElement(const EtDump& dump, const AotCapture& capture, const CaptureRecord* record,
                              std::size_t element, const CaptureValue& aotValue, const RuntimeValue& rt,
                              unsigned threads = 0) {
    ElementOutcome out;
    Operand aot;
    std::string aotType = "scalar";
    switch (aotValue.kind) {
    case CaptureValue::Kind::Tensor: {
        const auto* t = capture.tensor(aotValue);
        aot = Operand::tensor(t->scalar_type, t->shape, capture.file->bytes(*t), t->numel);
        aotType = scalarTypeName(static_cast<std::int8_t>(t->scalar_type));
        out.shape = shapeText(t->shape);
        break;
    }
    case CaptureValue::Kind::Int: aot = Operand::number(static_cast<double>(aotValue.int_value)); break;
    case CaptureValue::Kind::Float: aot = Operand::number(aotValue.float_value); break;
    case CaptureValue::Kind::Bool: aot = Operand::number(aotValue.bool_value ? 1 : 0); break;
    default:
        out.status = RowStatus::Invalid;
        out.reason = "the reference value is None or a nested list";
        return out;
    }
    if (out.shape.empty())
        out.shape = "scalar";

    Operand runtime;
    std::string rtType = "scalar";
    GapOptions options;
    options.threads = threads;
    switch (rt.kind) {
    case RuntimeValue::Kind::Tensor: {
        const Tensor& t = *rt.tensor;
        rtType = scalarTypeName(t.scalar_type);
        if (t.data == TensorData::Invalid || !t.numel) {
            out.status = RowStatus::Invalid;
            out.reason = "runtime tensor metadata is unusable: " + t.problem;
            return out;
        }
        if (t.data == TensorData::Missing || t.data == TensorData::None) {
            out.status = RowStatus::MissingData;
            out.reason =
                t.data == TensorData::None
                    ? "no debug buffer was given: the runtime tensor has no data (ExecuTorch compares zeros)"
                    : "runtime tensor data is missing: " + t.problem;
            out.dtype = aotType + " vs " + rtType;
            return out;
        }
        runtime =
            Operand::tensor(static_cast<ScalarType>(t.scalar_type), t.sizes, dump.tensorBytes(t), *t.numel);
        const auto type = static_cast<ScalarType>(t.scalar_type);
        const std::optional<QuantParams>* quant =
            record && element < record->quantization.size() ? &record->quantization[element] : nullptr;
        if (quant && *quant && !(*quant)->per_channel)
            options.step = (*quant)->scale.front();
        if (quant && *quant && isIntegerType(type)) {
            const auto& q = **quant;
            options.runtime_transform.scale = q.scale;
            options.runtime_transform.zero_point = q.zero_point;
            if (q.per_channel)
                options.runtime_transform.axis = q.axis;
            options.qmin = q.qmin;
            options.qmax = q.qmax;
            out.dequantized = true;
        }
        if (record && record->axis_order && t.sizes.size() == record->axis_order->size())
            options.runtime_transform.axis_order = record->axis_order;
        break;
    }
    case RuntimeValue::Kind::Int:
    case RuntimeValue::Kind::Bool:
    case RuntimeValue::Kind::Double: runtime = Operand::number(rt.number); break;
    case RuntimeValue::Kind::List:
        out.status = RowStatus::Invalid;
        out.reason = "a list of " + std::to_string(rt.items.size()) +
                     " runtime tensors against one reference value (ExecuTorch raises here)";
        return out;
    case RuntimeValue::Kind::None:
        out.status = RowStatus::Invalid;
        out.reason = "the runtime value is not a tensor or a number";
        return out;
    }
    out.dtype = aotType + " vs " + rtType + (out.dequantized ? " (dequantized)" : "");

    auto gap = computeGap(aot, runtime, options);
    if (!gap.metrics) {
        out.status = RowStatus::Invalid;
        out.reason = gap.problem + " (ExecuTorch raises here)";
        return out;
    }
    out.metrics = gap.metrics;
    if (gap.metrics->broadcast) {
        out.status = RowStatus::Broadcast;
        out.reason = "reference " + out.shape + " and runtime " + shapeText(runtime.shape) +
                     " differ; compared with broadcasting as ExecuTorch does";
    }
    return out;
}

std::size_t defaultRun(const EtDump& dump) {
    for (std::size_t r = 0; r < dump.runs.size(); ++r)
        for (const auto& e : dump.runs[r].events)
            if (std::holds_alternative<DebugEvent>(e))
                return r;
    return dump.runs.empty() ? 0 : dump.runs.size() - 1;
}

} // namespace

Result<Comparison> compareSession(const EtDump& dump, const EtRecord* etrecord, const AotCapture& capture,
                                  const ComparisonOptions& options) {
    Comparison c;
    if (dump.runs.empty()) {
        Error e;
        e.code = ErrorCode::Malformed;
        e.message = "the ETDump holds no runs";
        e.where.file = dump.etdump_path;
        return e;
    }
    c.run = options.run.value_or(defaultRun(dump));
    if (c.run >= dump.runs.size()) {
        Error e;
        e.code = ErrorCode::Malformed;
        e.message = "run " + std::to_string(c.run) + " requested but the ETDump holds " +
                    std::to_string(dump.runs.size()) + " runs";
        e.where.file = dump.etdump_path;
        return e;
    }
    const MethodMaps* maps = etrecord ? etrecord->maps(options.method) : nullptr;
    std::set<std::int64_t> opHandles;
    if (etrecord) {
        if (const auto* g = etrecord->edgeProgram(options.method)) {
            const auto hs = g->allDebugHandles();
            opHandles.insert(hs.begin(), hs.end());
        }
    } else {
        // Without an ETRecord only __debugID_ names resolve; accept their handles.
        for (const auto& r : capture.records)
            opHandles.insert(r.debug_handle.begin(), r.debug_handle.end());
    }

    const RunData& run = dump.runs[c.run];
    c.events = buildInspectorEvents(run, maps, opHandles);
    c.alignment = alignRuntimeWithCapture(c.events, capture);

    // Rows first, then every element of every row computed in parallel (big
    // tensors are also split inside computeGap when there are few of them).
    struct Task {
        std::size_t row;
        std::size_t element;
        const CaptureValue* aot;
        const RuntimeValue* runtime;
    };
    std::vector<Task> tasks;
    for (const auto& pair : c.alignment.pairs) {
        ComparisonRow row;
        row.index = c.rows.size();
        row.pair = &pair;
        row.aot_debug_handle = pair.handles;
        row.runtime_debug_handle = pair.handles;
        row.aot_ops = aotOpNamesWithin(pair.handles, capture);
        row.runtime_ops = opNamesWithin(pair.handles, c.alignment.runtime_op_names);
        row.instruction_id = pair.runtime->instruction_id;
        row.output_index = pair.output_index;
        row.selection = pair.selection;
        const CaptureRecord& rec = *pair.aot.record;
        if (!pair.runtime_value_valid) {
            row.status = RowStatus::Invalid;
            row.reason = pair.problem;
            row.in_executorch = false;
        } else if (rec.sequence) {
            row.in_executorch = rec.outputs.size() <= 1;
            if (!row.in_executorch)
                row.reason =
                    "the reference returned " + std::to_string(rec.outputs.size()) +
                    " outputs; ExecuTorch skips such rows, Gapscope compares them element for element";
            const auto& items = pair.runtime_value.items;
            if (items.size() != rec.outputs.size()) {
                row.status = RowStatus::Invalid;
                row.reason = std::to_string(rec.outputs.size()) + " reference outputs against " +
                             std::to_string(items.size()) + " runtime values";
            } else {
                for (std::size_t i = 0; i < items.size(); ++i)
                    tasks.push_back({row.index, i, &rec.outputs[i], &items[i]});
            }
        } else {
            tasks.push_back({row.index, 0, &rec.outputs.front(), &pair.runtime_value});
        }
        c.rows.push_back(std::move(row));
    }
    std::vector<ElementOutcome> outcomes(tasks.size());
    const unsigned inner = tasks.size() >= defaultThreadCount() ? 1u : 0u;
    parallelFor(tasks.size(), [&](std::size_t t) {
        const Task& task = tasks[t];
        outcomes[t] = compareElement(dump, capture, c.rows[task.row].pair->aot.record, task.element,
                                     *task.aot, *task.runtime, inner);
    });
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        ComparisonRow& row = c.rows[tasks[t].row];
        ElementOutcome& outcome = outcomes[t];
        row.shapes.push_back(outcome.shape);
        row.dtypes.push_back(outcome.dtype);
        row.dequantized = row.dequantized || outcome.dequantized;
        if (outcome.status > row.status) {
            row.status = outcome.status;
            row.reason = outcome.reason;
        }
        if (outcome.metrics)
            row.gaps.push_back(*outcome.metrics);
    }
    for (auto& row : c.rows) {
        if (row.pair->ambiguous_selection) {
            row.status = RowStatus::Invalid;
            row.reason =
                row.pair->selection +
                ": which runtime output corresponds to the reference cannot be told, so no number is shown";
        }
        if (row.status == RowStatus::Invalid)
            row.gaps.clear();
    }

    // Program outputs against the reference outputs, in order.
    if (capture.reference_outputs) {
        const auto runtimeOutputs = programOutputs(run);
        const auto& reference = *capture.reference_outputs;
        // A TensorList program output counts as its tensors, like the flattened reference.
        std::vector<RuntimeValue> flat;
        for (const auto& v : runtimeOutputs) {
            if (v.isSequence())
                flat.insert(flat.end(), v.items.begin(), v.items.end());
            else
                flat.push_back(v);
        }
        for (std::size_t i = 0; i < std::max(flat.size(), reference.size()); ++i) {
            OutputComparison oc;
            oc.index = i;
            if (i >= flat.size() || i >= reference.size()) {
                oc.status = RowStatus::Invalid;
                oc.reason = "the device logged " + std::to_string(flat.size()) +
                            " program outputs, the reference has " + std::to_string(reference.size());
            } else {
                auto outcome = compareElement(dump, capture, nullptr, i, reference[i], flat[i]);
                oc.status = outcome.status;
                oc.reason = outcome.reason;
                oc.shape = outcome.shape;
                oc.dtype = outcome.dtype;
                oc.metrics = outcome.metrics;
            }
            c.outputs.push_back(std::move(oc));
        }
    }

    // Coverage: nothing disappears silently.
    for (const auto* r : c.alignment.aot_without_runtime)
        c.coverage.push_back({"aot_without_runtime", r->ops.empty() ? "" : r->ops.front(), r->debug_handle,
                              "no runtime event carries these debug handles"});
    for (const auto* r : c.alignment.runtime_without_aot)
        c.coverage.push_back({"runtime_without_aot", r->event->name, r->handles,
                              "the capture has no reference output for these handles"});
    for (const auto& e : c.events) {
        if (isFrameworkEventName(e.name) || e.name == "OPERATOR_CALL")
            continue;
        if (e.resolved.handles.empty()) {
            const bool opaque = e.delegated && maps && maps->delegate_map.count(e.instruction_id) &&
                                maps->delegate_map.at(e.instruction_id).identifiers.empty();
            c.coverage.push_back({opaque ? "opaque_delegate_event" : "unresolved_event",
                                  e.name,
                                  {},
                                  opaque ? "backend '" + maps->delegate_map.at(e.instruction_id).backend +
                                               "' publishes no delegate-internal debug map"
                                         : e.resolved.reason});
        }
        for (const auto& v : e.debug_data) {
            auto flag = [&](const Tensor& t) {
                if (t.data == TensorData::Missing || t.data == TensorData::Invalid)
                    c.coverage.push_back({"missing_data", e.name, e.resolved.handles, t.problem});
            };
            if (v.isTensor())
                flag(*v.tensor);
            for (const auto& item : v.items)
                if (item.isTensor())
                    flag(*item.tensor);
        }
    }
    for (const auto& row : c.rows)
        if (row.status == RowStatus::Invalid)
            c.coverage.push_back({"invalid_comparison", row.aot_ops.empty() ? "" : row.aot_ops.back(),
                                  row.aot_debug_handle, row.reason});
    for (const auto& skipped : c.alignment.skipped)
        for (const auto* r : skipped.aot)
            c.coverage.push_back({"unmatched_group", r->ops.empty() ? "" : r->ops.front(), r->debug_handle,
                                  skipped.reason + " (runtime " + skipped.runtime->event->name + ")"});
    for (const auto& [r, rt] : c.alignment.fused)
        c.coverage.push_back({"fused", r->ops.empty() ? "" : r->ops.front(), r->debug_handle,
                              "inside the runtime group of " + rt->event->name +
                                  "; only the group's last output is compared"});
    for (const auto& err : c.alignment.errors)
        c.coverage.push_back({"alignment_error", "", {}, err});
    return c;
}

} // namespace gapscope
