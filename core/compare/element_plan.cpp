#include "core/compare/element_plan.h"

#include "core/backends/backend_conventions.h"
#include "core/etdump/scalar_type.h"
#include "core/metrics/broadcast_gap.h"

#include <string>
#include <string_view>

namespace gapscope {

namespace {

// Shapes that differ only by size-1 dimensions: the same element count, and the
// same sizes in the same order once the 1s are dropped.
bool sameElementsInOrder(const Operand& a, const Operand& b) {
    if (a.is_scalar || b.is_scalar || a.shape() == b.shape() || a.numel != b.numel)
        return false;
    return withoutOnes(a.shape()) == withoutOnes(b.shape());
}

// A reshape that keeps row-major order for certain: the size-1-free shapes split
// into consecutive groups of equal products (64x384 and 8x8x384: {64}={8,8},
// {384}={384}), each group a single dimension on one side, so every step is a
// merge or a split of adjacent dimensions. Two groups of several dimensions on
// both sides ({2,12} against {6,4}, or 384x64 against 64x384) may as well be a
// transpose, which no shape tells apart: those stay refused.
bool mergesOrSplitsDimensions(const Operand& a, const Operand& b) {
    if (a.is_scalar || b.is_scalar || a.shape() == b.shape() || a.numel != b.numel || a.numel == 0)
        return false;
    const auto x = withoutOnes(a.shape()), y = withoutOnes(b.shape());
    std::size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
        std::int64_t px = x[i], py = y[j];
        std::size_t nx = 1, ny = 1;
        while (px != py) {
            if (px < py) {
                if (++i == x.size())
                    return false;
                px *= x[i];
                ++nx;
            } else {
                if (++j == y.size())
                    return false;
                py *= y[j];
                ++ny;
            }
        }
        if (nx > 1 && ny > 1)
            return false;
        ++i;
        ++j;
    }
    return i == x.size() && j == y.size();
}

bool isIntegerType(ScalarType t) {
    const auto info = scalarTypeInfo(static_cast<std::int8_t>(t));
    return info && !info->isFloatingPoint && t != ScalarType::Bool;
}

bool isFloatType(ScalarType t) {
    const auto info = scalarTypeInfo(static_cast<std::int8_t>(t));
    return info && info->isFloatingPoint;
}

// Reads the device's integer codes through `q` (the plan's runtime transform);
// why it cannot, or nothing. The device's codes must be able to hold the
// parameters' qmin..qmax: an int8 tensor read with uint8's (0..255) is every
// value wrong. The names may differ (QNN's 16-bit activations: int32
// parameters, 0..65535, on uint16 tensors).
std::optional<std::string> dequantizeWith(const QuantParams& q, const std::string& rtType, ElementPlan& out) {
    if (const auto held = quantizedRange(rtType); held && (q.qmin < held->first || q.qmax > held->second))
        return "the capture's quantisation parameters (" + q.dtype + ", " + std::to_string(q.qmin) + ".." +
               std::to_string(q.qmax) + ") do not fit the runtime tensor's " + rtType +
               ": its codes cannot be dequantised with them";
    out.options.runtime_transform.scale = q.scale;
    out.options.runtime_transform.zero_point = q.zero_point;
    if (q.per_channel)
        out.options.runtime_transform.axis = q.axis;
    out.options.qmin = q.qmin;
    out.options.qmax = q.qmax;
    out.dequantized = true;
    return std::nullopt;
}

// A reference tensor and a (dequantised, when it was) device tensor of
// different kinds of number: why they cannot be compared, or nothing.
// `dequantized`: the device's integer codes are read as real values through the
// capture's quantisation parameters. `quantized`: the capture records
// quantisation parameters for this output at all.
std::optional<std::string> kindMismatch(const Operand& reference, bool referenceIsFloat,
                                        const std::string& aotType, ScalarType runtime,
                                        const std::string& rtType, bool dequantized, bool quantized) {
    if (reference.is_scalar)
        return std::nullopt; // a Python number: compared as a number
    const bool referenceIsBool = aotType == "bool";
    if (!referenceIsFloat && !referenceIsBool && dequantized)
        // Issue 55, class 12: a QNN reference stored as uint8 codes read against
        // the device's codes dequantised gave max-abs 253 and "ok". The
        // parameters describe the device's tensor; nothing says the reference's
        // codes were made with them, so dequantising it too could be as wrong.
        return "the reference holds " + aotType + " integer codes and the device's " + rtType +
               " codes are dequantised with the capture's quantisation parameters: codes against real "
               "values are no gap, and the capture does not say the reference was quantised with the "
               "same parameters; capture the reference in float (dequantised)";
    if (!referenceIsFloat && !referenceIsBool && isFloatType(runtime))
        return "the reference holds " + aotType + " values and the device " + rtType +
               (quantized ? ": integer codes (a quantised reference) are not comparable with real values; "
                            "capture the reference in float"
                          : ": integers (indices or counts: the capture records no quantisation for this "
                            "output) are not comparable with real values");
    if (referenceIsBool != (runtime == ScalarType::Bool))
        return "a " + aotType + " reference against a " + rtType +
               " runtime tensor: true/false values are not comparable with numbers";
    return std::nullopt;
}

// "float32 vs int8 (dequantized)", made once in its final size: every row of a
// comparison gets one.
std::string dtypeText(const std::string& aot, const std::string& rt, bool dequantized) {
    constexpr std::string_view vs = " vs ", note = " (dequantized)";
    std::string s;
    s.reserve(aot.size() + vs.size() + rt.size() + (dequantized ? note.size() : 0));
    s.append(aot).append(vs).append(rt);
    if (dequantized)
        s.append(note);
    return s;
}

} // namespace

ElementPlan planElement(const EtDump& dump, const AotCapture& capture, const CaptureRecord* record,
                        std::size_t element, const CaptureValue& reference, const RuntimeValue& rt,
                        const std::string& backend) {
    ElementPlan out;
    std::string aotType = "scalar";
    bool referenceIsFloat = false;
    switch (reference.kind) {
    case CaptureValue::Kind::Tensor: {
        const auto* t = capture.tensor(reference);
        out.reference = Operand::tensorOver(t->scalar_type, t->shape, capture.file->bytes(*t), t->numel);
        aotType = scalarTypeName(static_cast<std::int8_t>(t->scalar_type));
        out.shape = shapeText(t->shape);
        const auto info = scalarTypeInfo(static_cast<std::int8_t>(t->scalar_type));
        referenceIsFloat = info && info->isFloatingPoint;
        break;
    }
    case CaptureValue::Kind::Int:
        out.reference = Operand::number(static_cast<double>(reference.int_value));
        break;
    case CaptureValue::Kind::Float:
        out.reference = Operand::number(reference.float_value);
        referenceIsFloat = true;
        break;
    case CaptureValue::Kind::Bool: out.reference = Operand::number(reference.bool_value ? 1 : 0); break;
    default:
        out.status = RowStatus::Invalid;
        out.reason = "the reference value is None or a nested list";
        return out;
    }
    if (out.shape.empty())
        out.shape = "scalar";

    std::string rtType = "scalar";
    switch (rt.kind) {
    case RuntimeValue::Kind::Tensor: {
        const Tensor& t = *rt.tensor;
        rtType = scalarTypeName(t.scalar_type);
        if (t.data == TensorData::Invalid || !t.numel) {
            out.status = RowStatus::Invalid;
            out.reason = "runtime tensor metadata is unusable: " + t.problem;
            return out;
        }
        // Empty with elements: offset −1, the runtime wrote nothing for a tensor
        // that has elements; there is nothing to compare.
        if (t.data == TensorData::Missing || t.data == TensorData::None || t.data == TensorData::Empty) {
            out.status = RowStatus::MissingData;
            out.reason =
                t.data == TensorData::None
                    ? "no debug buffer was given: the runtime tensor has no data (ExecuTorch compares zeros)"
                : t.data == TensorData::Empty ? "the runtime wrote no data for this tensor of " +
                                                    std::to_string(*t.numel) + " elements (offset -1)"
                                              : "runtime tensor data is missing: " + t.problem;
            out.dtype = dtypeText(aotType, rtType, false);
            return out;
        }
        out.runtime = Operand::tensorOver(static_cast<ScalarType>(t.scalar_type), t.sizes,
                                          rt.bytes ? *rt.bytes : dump.tensorBytes(t), *t.numel);
        const auto type = static_cast<ScalarType>(t.scalar_type);
        const std::optional<QuantParams>* quant =
            record && element < record->quantization.size() ? &record->quantization[element] : nullptr;
        if (quant && *quant && !(*quant)->per_channel)
            out.options.step = (*quant)->scale.front();
        if (quant && *quant && isIntegerType(type))
            if (auto why = dequantizeWith(**quant, rtType, out)) {
                out.status = RowStatus::Invalid;
                out.reason = std::move(*why);
                out.dtype = dtypeText(aotType, rtType, false);
                return out;
            }
        out.dtype = dtypeText(aotType, rtType, out.dequantized);
        if (!out.dequantized && referenceIsFloat && isIntegerType(type)) {
            out.status = RowStatus::Invalid;
            out.reason = "the runtime tensor holds raw " + rtType + " values and the capture has no " +
                         "quantisation parameters for this output, so it cannot be dequantised; " +
                         "comparing the integers with the " + aotType +
                         " reference would give a wrong number";
            return out;
        }
        // A float tensor against integer or boolean values (or the other way)
        // is no gap: a reference holding quantised codes against dequantised
        // device values, a mask against scores (docs/metrics.md, "Dtypes").
        if (const auto why = kindMismatch(out.reference, referenceIsFloat, aotType, type, rtType,
                                          out.dequantized, quant && *quant)) {
            out.status = RowStatus::Invalid;
            out.reason = *why;
            return out;
        }
        if (record && record->axis_order) {
            if (t.sizes.size() != record->axis_order->size()) {
                out.status = RowStatus::Invalid;
                out.reason = "the capture's axis_order has " + std::to_string(record->axis_order->size()) +
                             " axes but the runtime tensor has rank " + std::to_string(t.sizes.size()) +
                             ": its layout cannot be established";
                return out;
            }
            out.options.runtime_transform.axis_order = record->axis_order;
        } else if (const auto& conventions = backendConventions(backend);
                   conventions.relaidAt(t.sizes.size()) && !capture.layout_recorded) {
            // The device may have moved this tensor's channels last; a capture that
            // does not record the layout cannot tell (BackendConventions).
            out.status = RowStatus::Invalid;
            out.reason = std::string(conventions.label) + " may hold this rank-" +
                         std::to_string(t.sizes.size()) +
                         " tensor channels-last and the capture does not record its layout (axis_order); " +
                         "capture with " + std::string(conventions.capture_hint);
            return out;
        }
        break;
    }
    case RuntimeValue::Kind::Int:
    case RuntimeValue::Kind::Bool:
    case RuntimeValue::Kind::Double: out.runtime = Operand::number(rt.number); break;
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
    if (rt.kind != RuntimeValue::Kind::Tensor) // a tensor's was made where it was dequantised
        out.dtype = dtypeText(aotType, rtType, out.dequantized);
    if (!out.options.runtime_transform.axis_order && (sameElementsInOrder(out.reference, out.runtime) ||
                                                      mergesOrSplitsDimensions(out.reference, out.runtime))) {
        out.reshaped = !sameElementsInOrder(out.reference, out.runtime);
        out.logged_shape = out.runtime.shape();
        out.runtime.shapeAs(out.reference);
    }
    // Both shapes where they differ, so a reshaped or refused row says what met what.
    if (!out.reference.is_scalar && !out.runtime.is_scalar &&
        (out.logged_shape ? *out.logged_shape : out.runtime.shape()) != out.reference.shape())
        out.shape +=
            " (runtime " + shapeText(out.logged_shape ? *out.logged_shape : out.runtime.shape()) + ")";
    return out;
}

GapOptions measuringOptions(const ElementPlan& plan, unsigned threads, const std::atomic<bool>* cancelled) {
    GapOptions options = plan.options;
    options.threads = threads;
    options.cancelled = cancelled;
    return options;
}

ElementResult measureElement(const ElementPlan& plan, unsigned threads, const std::atomic<bool>* cancelled) {
    if (!plan.measurable())
        return measureElement(plan, GapResult{}, threads, cancelled);
    return measureElement(
        plan, computeGap(plan.reference, plan.runtime, measuringOptions(plan, threads, cancelled)), threads,
        cancelled);
}

ElementResult measureElement(const ElementPlan& plan, GapResult gap, unsigned threads,
                             const std::atomic<bool>* cancelled) {
    ElementResult out;
    if (!plan.measurable()) {
        out.status = plan.status;
        out.reason = plan.reason;
        return out;
    }
    if (!gap.metrics) {
        out.status = RowStatus::Invalid;
        out.reason = gap.problem + " (ExecuTorch raises here)";
        return out;
    }
    out.metrics = std::move(gap.metrics);
    if (out.metrics->broadcast) {
        out.status = RowStatus::Broadcast;
        out.reason = "reference " + shapeText(plan.reference.shape()) + " and runtime " +
                     shapeText(plan.runtime.shape()) +
                     " hold different numbers of elements; compared with broadcasting as ExecuTorch does, "
                     "so the numbers mix unrelated elements and the row is never the first divergence or "
                     "an error introducer";
    } else if (plan.logged_shape && plan.reshaped) {
        out.reason =
            "runtime " + shapeText(*plan.logged_shape) + " holds the reference's " +
            shapeText(plan.reference.shape()) +
            " elements in the same order (a reshape that only merges or splits adjacent dimensions): "
            "compared element for element; ExecuTorch cannot broadcast these shapes";
    } else if (plan.logged_shape) {
        out.reason = "runtime " + shapeText(*plan.logged_shape) + " holds the reference's " +
                     shapeText(plan.reference.shape()) +
                     " elements in the same order (only size-1 dimensions differ): compared element for "
                     "element; ExecuTorch broadcasts them (its numbers are kept apart)";
    }
    // ExecuTorch's own numbers: the same pass when nothing was transformed or reshaped.
    const auto& tf = plan.options.runtime_transform;
    if (!plan.executorch_numbers) {
        // Nobody reads them (see ElementPlan::executorch_numbers).
    } else if (!plan.logged_shape && !tf.dequantizes() && !tf.axis_order &&
               out.metrics->agreeing_infinities == 0) {
        out.executorch = ExecutorchGap{out.metrics->mse, out.metrics->l1, out.metrics->snr};
    } else {
        Operand asLogged = plan.runtime;
        if (plan.logged_shape)
            asLogged.shapeOver(*plan.logged_shape);
        GapOptions plain;
        plain.threads = threads;
        plain.cancelled = cancelled;
        plain.executorch_semantics = true;
        const auto fast = tf.dequantizes() || tf.axis_order
                              ? std::nullopt
                              : executorchBroadcastGap(plan.reference, asLogged);
        if (fast)
            out.executorch = ExecutorchGap{fast->mse, fast->l1, fast->snr};
        else if (const auto theirs = computeGap(plan.reference, asLogged, plain); theirs.metrics)
            out.executorch = ExecutorchGap{theirs.metrics->mse, theirs.metrics->l1, theirs.metrics->snr};
    }
    return out;
}

} // namespace gapscope
