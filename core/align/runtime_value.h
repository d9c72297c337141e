#pragma once

#include "core/common/byte_span.h"
#include "core/etdump/etdump_model.h"

#include <optional>
#include <vector>

namespace gapscope {

// A runtime output as ExecuTorch's Inspector inflates it (inflate_runtime_output):
// a tensor, a list of tensors (TensorList), or a scalar; anything else is None.
struct RuntimeValue {
    enum class Kind { Tensor, List, Int, Bool, Double, None };
    Kind kind = Kind::None;
    const Tensor* tensor = nullptr; // into the EtDump, for Tensor
    // A tensor's bytes when they are not the dump's (outputs the user saved,
    // saved_outputs.h); empty: the dump's debug buffer holds them.
    std::optional<ByteSpan> bytes;
    std::vector<RuntimeValue> items; // for List
    double number = 0;               // Int / Bool (0/1) / Double / Float

    bool isSequence() const { return kind == Kind::List; }
    bool isTensor() const { return kind == Kind::Tensor; }
};

RuntimeValue inflateRuntimeValue(const Value& value);

} // namespace gapscope
