#pragma once

#include "core/common/field_path.h"
#include "core/common/json_fault.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// Small JSON documents (a session file, the Arm backend's debug entries, a TOSA
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

// Reading the fields of such a document: each throws JsonFault naming the
// field ("[3].tosa_info.node_name") and what is wrong ("missing", "7 is not a
// string"). The path is rendered only for a fault.
const nlohmann::json& jsonMember(const nlohmann::json& object, const FieldPath& at, const char* key);
const nlohmann::json& jsonObject(const nlohmann::json& value, const FieldPath& at);
std::string jsonText(const nlohmann::json& object, const FieldPath& at, const char* key);
std::vector<std::string> jsonTexts(const nlohmann::json& object, const FieldPath& at, const char* key);

} // namespace gapscope
