#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gapscope {

// One tensor entry of a safetensors header as written: the three fields
// safetensors defines, nothing checked beyond their JSON types.
struct ScannedTensorEntry {
    std::string name;
    std::string dtype;
    std::vector<std::int64_t> shape; // each entry 0 … 2^63 − 1
    std::uint64_t begin = 0, end = 0;
};

struct ScannedHeader {
    std::vector<ScannedTensorEntry> tensors;                   // in file order
    std::vector<std::pair<std::string, std::string>> metadata; // __metadata__, in file order
};

// A safetensors header read in one pass without a JSON DOM, for headers of the
// shape every writer produces: one object of tensor entries, each an object of
// exactly "dtype" (a string), "shape" (a list of integers) and "data_offsets"
// (two integers), and at most one "__metadata__" object of strings. Strings
// are decoded and checked as a JSON parser does (escapes, surrogate pairs,
// well-formed UTF-8 per RFC 3629, no raw control characters).
//
// Nothing, and no error, for anything else: another shape, a duplicate key, a
// number that is not a plain integer, malformed JSON. The caller then reads
// the header with the full JSON parser, which accepts the same documents and
// says what is wrong with the others, so both readings give one result.
std::optional<ScannedHeader> scanSafetensorsHeader(std::string_view text);

} // namespace gapscope
