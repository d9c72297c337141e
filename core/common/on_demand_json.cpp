#include "core/common/on_demand_json.h"

#include "core/common/json_depth.h"
#include "core/common/utf8.h"

#include <limits>

namespace gapscope {

using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;

namespace {

// The first byte that does not begin a well-formed UTF-8 sequence.
std::optional<std::size_t> firstBadUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = utf8Length(text, i);
        if (len == 0)
            return i;
        i += len;
    }
    return std::nullopt;
}

// The first raw control character inside a string (JSON wants it escaped),
// or the opening quote of a string that is never closed.
std::optional<std::size_t> stringFault(std::string_view text, bool unclosed) {
    bool inString = false;
    std::size_t opened = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!inString) {
            if (c == '"')
                inString = true, opened = i;
        } else if (c == '\\') {
            ++i;
        } else if (c == '"') {
            inString = false;
        } else if (!unclosed && static_cast<unsigned char>(c) < 0x20) {
            return i;
        }
    }
    if (unclosed) // simdjson counts quotes its own way: failing that, the text ends inside a string
        return inString ? opened : text.size();
    return std::nullopt;
}

} // namespace

OnDemandJson::OnDemandJson(std::string_view text, std::size_t readable) {
    if (readable >= text.size() && readable - text.size() >= simdjson::SIMDJSON_PADDING) {
        m_text = text;
        m_error = m_parser.iterate(simdjson::padded_string_view(text.data(), text.size(), readable))
                      .get(m_document);
    } else {
        m_copy = simdjson::padded_string(text.data(), text.size());
        m_text = std::string_view(m_copy.data(), m_copy.size());
        m_error = m_parser.iterate(m_copy).get(m_document);
    }
}

simdjson::ondemand::document& OnDemandJson::document() {
    if (m_error)
        throw simdjson::simdjson_error(m_error);
    return m_document;
}

std::optional<std::size_t> OnDemandJson::offset(simdjson::error_code thrown) {
    const std::string_view text = m_text;
    // The first pass (simdjson's stage 1) names the kind of fault but not its
    // place; these three can be found again.
    if (m_error == simdjson::UTF8_ERROR)
        return firstBadUtf8(text);
    if (m_error == simdjson::UNESCAPED_CHARS || m_error == simdjson::UNCLOSED_STRING)
        return stringFault(text, m_error == simdjson::UNCLOSED_STRING);
    // The root's last bracket does not close its first: found before anything
    // is read, where the parser stands at the start; the fault is at the end.
    if (thrown == simdjson::INCOMPLETE_ARRAY_OR_OBJECT)
        return text.size();
    if (m_error)
        return std::nullopt;
    const char* at = nullptr;
    if (m_document.current_location().get(at) || at < m_text.data() || at > m_text.data() + m_text.size())
        return std::nullopt;
    return static_cast<std::size_t>(at - m_text.data());
}

void OnDemandJson::requireEnd() {
    // Past the root value the parser stands on nothing (simdjson 3.0 has no
    // document::at_end()); a token there is content after the document.
    const char* at = nullptr;
    if (!m_document.current_location().get(at))
        throw simdjson::simdjson_error(simdjson::TRAILING_CONTENT);
}

std::optional<std::int64_t> typeFirstInt64(simdjson::ondemand::value value) {
    if (value.type().value() != json_type::number)
        return std::nullopt;
    // A malformed number throws: it is a fault of the text, not of its meaning.
    if (value.get_number_type().value() != number_type::signed_integer)
        return std::nullopt;
    return value.get_int64().value();
}

std::optional<std::uint64_t> typeFirstUint64(simdjson::ondemand::value value) {
    if (value.type().value() != json_type::number)
        return std::nullopt;
    switch (value.get_number_type().value()) {
    case number_type::unsigned_integer: return value.get_uint64().value();
    case number_type::signed_integer: {
        const std::int64_t i = value.get_int64().value();
        return i < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(i));
    }
    default: return std::nullopt;
    }
}

// simdjson's get_int64 and get_uint64 succeed exactly where the type-first
// readings return a number, with that number, and leave the value unread where
// they fail (tests/core/on_demand_json_tests.cpp pins both): tried first, they
// read a number once instead of three times, a fifth of a safetensors header's
// entries.
std::optional<std::int64_t> onDemandInt64(simdjson::ondemand::value value) {
    std::int64_t n = 0;
    if (value.get_int64().get(n) == simdjson::SUCCESS)
        return n;
    return typeFirstInt64(value);
}

std::optional<std::uint64_t> onDemandUint64(simdjson::ondemand::value value) {
    std::uint64_t n = 0;
    if (value.get_uint64().get(n) == simdjson::SUCCESS)
        return n;
    return typeFirstUint64(value);
}

void validateSkipped(simdjson::ondemand::value value, std::size_t depth) {
    switch (value.type().value()) {
    case json_type::array:
        if (depth >= kMaxJsonDepth)
            throw simdjson::simdjson_error(simdjson::DEPTH_ERROR);
        for (auto item : value.get_array())
            validateSkipped(item.value(), depth + 1);
        break;
    case json_type::object:
        if (depth >= kMaxJsonDepth)
            throw simdjson::simdjson_error(simdjson::DEPTH_ERROR);
        for (auto field : value.get_object()) {
            (void)field.unescaped_key().value();
            validateSkipped(field.value(), depth + 1);
        }
        break;
    case json_type::string: (void)value.get_string().value(); break;
    case json_type::number: (void)value.get_double().value(); break;
    case json_type::boolean: (void)value.get_bool().value(); break;
    case json_type::null:
        if (!value.is_null().value())
            throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
        break;
    }
}

std::string onDemandMessage(const simdjson::simdjson_error& error) {
    return std::string("not valid JSON: ") + error.what();
}

} // namespace gapscope
