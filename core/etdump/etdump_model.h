#pragma once

#include "core/common/byte_span.h"
#include "core/common/diagnostics.h"
#include "core/common/mapped_file.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gapscope {

// Plain values mirroring the ETDump tables (shared/formats/executorch-artifacts.md
// section 1.4), with every schema default applied. Field names follow the schema
// so that `gapscope-cli dump --json` and the code read alike.

// What the reader knows about a tensor's bytes in the debug buffer.
enum class TensorData {
    Present, // offset + nbytes lies inside the debug buffer
    Missing, // a debug buffer was given but does not hold these bytes
    None,    // no debug buffer was given: metadata only, never zeros
    Empty,   // zero elements, or offset -1 (nothing was written)
    Invalid, // the metadata itself is unusable (negative size, overflow, unknown dtype)
};

const char* tensorDataName(TensorData data);

struct Tensor {
    std::int8_t scalar_type = 0; // raw ScalarType byte; see scalar_type.h
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
    std::int64_t offset = 0;

    // Derived by the reader.
    std::optional<std::uint64_t> numel;  // absent when sizes are invalid
    std::optional<std::uint64_t> nbytes; // absent when numel or dtype are unusable
    TensorData data = TensorData::None;
    std::string problem; // why data is Missing or Invalid
};

enum class ValueType : std::int8_t { Null = 0, Int, Bool, Float, Double, Tensor, TensorList, String };

const char* valueTypeName(ValueType type);

struct Value {
    std::int8_t val = 0; // raw ValueType byte
    bool known = true;   // val is a ValueType member and its payload was present
    bool output = false; // Value.output.bool_val: a program output
    bool has_output_marker = false;
    std::int64_t int_val = 0;
    bool bool_val = false;
    float float_val = 0;
    double double_val = 0;
    std::vector<Tensor> tensors; // one for Tensor, the list for TensorList

    ValueType type() const { return static_cast<ValueType>(val); }
};

struct ProfileEvent {
    std::optional<std::string> name;
    std::int32_t chain_index = 0;
    std::int32_t instruction_id = -1;
    std::int32_t delegate_debug_id_int = -1;
    std::optional<std::string> delegate_debug_id_str;
    std::optional<std::vector<std::uint8_t>> delegate_debug_metadata;
    std::uint64_t start_time = 0;
    std::uint64_t end_time = 0;
};

struct DebugEvent {
    std::uint64_t chain_index = 0;
    std::int32_t instruction_id = -1;
    std::optional<Value> debug_entry;
    std::int32_t delegate_debug_id_int = -1;
    std::optional<std::string> delegate_debug_id_str;
    std::optional<std::string> name;
};

struct AllocationEvent {
    std::int32_t allocator_id = 0; // 1-based into RunData.allocators
    std::uint64_t allocation_size = 0;
};

// An Event table with no member at all; kept so event indices match the file.
struct EmptyEvent {};

using Event = std::variant<ProfileEvent, DebugEvent, AllocationEvent, EmptyEvent>;

struct RunData {
    std::optional<std::string> name;
    std::int32_t bundled_input_index = -1;
    std::vector<std::string> allocators;
    std::vector<Event> events;
};

struct EtDump {
    std::uint32_t version = 0;
    bool size_prefixed = true;
    std::vector<RunData> runs;
    Warnings warnings;

    std::string etdump_path;
    // The debug buffer the tensors were resolved against; null = none given.
    std::shared_ptr<const MappedFile> debug_buffer;

    // The raw bytes of a Present tensor; an empty span for any other state.
    ByteSpan tensorBytes(const Tensor& tensor) const;
};

} // namespace gapscope
