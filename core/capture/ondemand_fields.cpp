#include "core/capture/ondemand_fields.h"

namespace gapscope::ondemand_fields {

using simdjson::ondemand::json_type;

void fault(const JsonPath& field, std::string message, ErrorCode code) {
    throw JsonFault{field.str(), std::move(message), code};
}

bool isNull(value& v) {
    if (v.type().value() != json_type::null)
        return false;
    if (!v.is_null().value())
        throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
    return true;
}

std::optional<std::string> stringOf(value& v) {
    if (auto s = stringViewOf(v))
        return std::string(*s);
    return std::nullopt;
}

std::optional<std::string_view> stringViewOf(value& v) {
    if (v.type().value() != json_type::string)
        return std::nullopt;
    return v.get_string().value();
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
