#include "core/align/runtime_value.h"

namespace gapscope {

RuntimeValue inflateRuntimeValue(const Value& value) {
    RuntimeValue out;
    if (!value.known)
        return out;
    switch (value.type()) {
    case ValueType::Tensor:
        if (!value.tensors.empty()) {
            out.kind = RuntimeValue::Kind::Tensor;
            out.tensor = &value.tensors.front();
        }
        break;
    case ValueType::TensorList:
        out.kind = RuntimeValue::Kind::List;
        for (const auto& t : value.tensors) {
            RuntimeValue item;
            item.kind = RuntimeValue::Kind::Tensor;
            item.tensor = &t;
            out.items.push_back(item);
        }
        break;
    case ValueType::Int:
        out.kind = RuntimeValue::Kind::Int;
        out.number = static_cast<double>(value.int_val);
        break;
    case ValueType::Bool:
        out.kind = RuntimeValue::Kind::Bool;
        out.number = value.bool_val ? 1.0 : 0.0;
        break;
    case ValueType::Float:
        out.kind = RuntimeValue::Kind::Double;
        out.number = static_cast<double>(value.float_val);
        break;
    case ValueType::Double:
        out.kind = RuntimeValue::Kind::Double;
        out.number = value.double_val;
        break;
    default: break;
    }
    return out;
}

} // namespace gapscope
