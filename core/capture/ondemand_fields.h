#pragma once

#include "core/common/field_path.h"
#include "core/common/on_demand_json.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

namespace gapscope::ondemand_fields {

// Small steps the capture document's readers share: each reads one value of
// an On-Demand document and throws JsonFault (or simdjson_error for a fault
// of the text) where it is not what the format says.

using simdjson::ondemand::value;

// A value's JSON path ("records[3].outputs[0]"), rendered only for a fault.
using JsonPath = FieldPath;

[[noreturn]] void fault(const JsonPath& field, std::string message, ErrorCode code = ErrorCode::Malformed);

// The keys of one object seen so far: a key given twice is refused, since
// JSON parsers disagree on which of the two counts.
class Keys {
public:
    // False for a key seen before.
    bool see(unsigned index) {
        const bool first = !has(index);
        m_seen |= 1u << index;
        return first;
    }
    bool has(unsigned index) const { return m_seen & (1u << index); }

private:
    unsigned m_seen = 0;
};

// The position of `key` in `keys`, or keys.size().
template <std::size_t N> unsigned indexOf(const std::string_view (&keys)[N], std::string_view key) {
    return static_cast<unsigned>(std::find(keys, keys + N, key) - keys);
}

// Calls each(index, key, value) for every key of `object` that `keys` lists,
// in the document's order; reads and ignores the others (to `depth` more
// levels); refuses a key given twice. Returns the keys seen.
template <std::size_t N, typename Each>
Keys forEachKey(simdjson::ondemand::object object, const std::string_view (&keys)[N], const JsonPath& field,
                Each&& each, std::size_t depth = 0) {
    Keys seen;
    for (auto f : object) {
        const std::string_view key = f.unescaped_key().value();
        const unsigned k = indexOf(keys, key);
        value v = f.value().value();
        if (k == N) {
            validateSkipped(v, depth);
            continue;
        }
        if (!seen.see(k))
            fault(field, "the key '" + std::string(key) + "' appears twice");
        each(k, key, v);
    }
    return seen;
}

bool isNull(value& v);
std::optional<std::string> stringOf(value& v);
// The same, unescaped into the parser's buffer: valid while its document is read.
std::optional<std::string_view> stringViewOf(value& v);
std::optional<bool> boolOf(value& v);
// A string kept in `out`; anything else read and ignored.
void optionalString(value& v, std::optional<std::string>& out);

} // namespace gapscope::ondemand_fields
