#include "core/etdump/etdump_model.h"

namespace gapscope {

const char* tensorDataName(TensorData data) {
    switch (data) {
    case TensorData::Present: return "present";
    case TensorData::Missing: return "missing";
    case TensorData::None: return "none";
    case TensorData::Empty: return "empty";
    case TensorData::Invalid: return "invalid";
    }
    return "invalid";
}

const char* valueTypeName(ValueType type) {
    switch (type) {
    case ValueType::Null: return "null";
    case ValueType::Int: return "int";
    case ValueType::Bool: return "bool";
    case ValueType::Float: return "float";
    case ValueType::Double: return "double";
    case ValueType::Tensor: return "tensor";
    case ValueType::TensorList: return "tensor_list";
    case ValueType::String: return "string";
    }
    return "unknown";
}

ByteSpan EtDump::tensorBytes(const Tensor& tensor) const {
    if (tensor.data != TensorData::Present || !debug_buffer || !tensor.nbytes)
        return {};
    return debug_buffer->bytes().subspan(static_cast<std::size_t>(tensor.offset),
                                         static_cast<std::size_t>(*tensor.nbytes));
}

} // namespace gapscope
