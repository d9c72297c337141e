#include "core/capture/ondemand_fields.h"

namespace gapscope::ondemand_fields {

using simdjson::ondemand::json_type;

void fault(std::string field, std::string message, ErrorCode code) {
    throw JsonFault{std::move(field), std::move(message), code};
}

void Keys::see(unsigned index, std::string_view key) {
    if (m_seen & (1u << index))
        fault(m_field, "the key '" + std::string(key) + "' appears twice");
    m_seen |= 1u << index;
}

bool isNull(value& v) {
    if (v.type().value() != json_type::null)
        return false;
    if (!v.is_null().value())
        throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
    return true;
}

std::optional<std::string> stringOf(value& v) {
    if (v.type().value() != json_type::string)
        return std::nullopt;
    return std::string(v.get_string().value());
}

std::optional<bool> boolOf(value& v) {
    if (v.type().value() != json_type::boolean)
        return std::nullopt;
    return v.get_bool().value();
}

void optionalString(value& v, std::optional<std::string>& out) {
    if (auto s = stringOf(v))
        out = std::move(s);
    else
        validateSkipped(v);
}

} // namespace gapscope::ondemand_fields
