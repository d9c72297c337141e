#pragma once

#include "core/etdump/etdump_model.h"

#include <cstdint>
#include <vector>

namespace gapscope {

// Serialises the model back to ETDump bytes through the generated FlatBuffers
// API. It writes what the model says, including what a real writer never would
// (negative sizes, unknown dtypes, a Value without its payload when
// `known == false`), so tests and benchmarks can build any input they need.
// Derived Tensor fields (numel, nbytes, data, problem) are ignored.
std::vector<std::uint8_t> writeEtdump(const EtDump& dump, bool sizePrefixed = true);

// Builds a debug buffer the way ExecuTorch's data sinks do: BufferDataSink
// aligns every blob to `alignment` bytes in absolute memory (zero padding), and
// FileDataSink is alignment 1. `baseMisalignment` models a user buffer whose
// base address lies that many bytes past an alignment boundary.
class DebugBufferBuilder {
public:
    explicit DebugBufferBuilder(std::size_t alignment = 64, std::size_t baseMisalignment = 0);

    // Returns the blob's offset, or -1 for zero bytes (nothing is written).
    std::int64_t append(const void* data, std::size_t size);
    const std::vector<std::uint8_t>& bytes() const { return m_bytes; }

private:
    std::size_t m_alignment;
    std::size_t m_base;
    std::vector<std::uint8_t> m_bytes;
};

} // namespace gapscope
