#pragma once

#include <cstddef>
#include <cstdint>

// libFuzzer's own mutation of `size` bytes into at most `maxSize`.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace gapscope::fuzz {

// libFuzzer's custom mutator for inputs that are JSON documents: the document
// is parsed and one value changed as a value, so that mutations reach the
// readers' rules (ranges, types, missing and extra keys) instead of dying at
// the JSON syntax. One value of the tree is chosen and
//   - set to a boundary number (0, -1, 2^31, 2^63, 2^64 - 1, 1e-40, 0.5, ...),
//   - set to a value of another type (null, true, "", "0231", [], {}, dtype names),
//   - stepped (+1, -1, negated, doubled, an integer written as a float),
//   - removed from its object or array, or an element or key added,
//   - replaced by a copy of another value of the same document,
//   - renamed to another key of the document,
//   - or, if a string, has its bytes mutated by libFuzzer.
// One time in five, and whenever the input is not JSON or nests deeper than 64
// levels, libFuzzer's own byte mutations run instead: they keep the syntax,
// duplicate keys and UTF-8 faults covered.
std::size_t mutateJson(std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed);

} // namespace gapscope::fuzz
