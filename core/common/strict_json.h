#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gapscope {

// Small JSON documents (a session file, the Arm backend's debug.json, a TOSA
// run's document) parsed whole with nlohmann, after one SAX pass that refuses
// what JSON parsers disagree on or what would overflow a recursive walk: a key
// given twice in one object, and nesting deeper than `maxDepth`. The parsed
// value, or what is wrong ("not JSON at byte 12 (…)", "the key \"a\" appears
// twice in one object", "nested deeper than 32 levels").
struct StrictJson {
    std::optional<nlohmann::json> value;
    std::string problem;
};
StrictJson parseStrictJson(std::string_view text, std::size_t maxDepth);

// A value shown in a message: short, and never the whole of a huge string.
std::string shownJson(const nlohmann::json& value);

} // namespace gapscope
