#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gapscope {

// How a reader with a one-pass path reads its JSON: Scan tries the one-pass
// reader and falls back to the DOM on anything it does not take; Dom reads with
// the DOM alone (the tests and the fuzzer compare the two).
enum class JsonParse { Scan, Dom };

// A JSON number token as a JSON parser (nlohmann's) keeps it: an unsigned
// integer when it has no sign, fraction or exponent and fits 64 bits; a signed
// one when it has a minus sign and fits; a double otherwise.
struct JsonNumber {
    enum class Kind { Unsigned, Signed, Float };
    Kind kind = Kind::Unsigned;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double f = 0;
    double asDouble() const;
    // The integer it holds when that fits a signed 64-bit integer (jsonInt64).
    bool asInt64(std::int64_t& out) const;
};

// A cursor for the one-pass readers that take the usual shape of a document
// without a DOM (safetensors headers, capture documents). Each step advances
// over what it expects and returns true, or returns false; a reader then stops
// and leaves the text to the full JSON parser, which says what is wrong. So a
// step only has to be exact about what it accepts: the same text and meaning
// a JSON parser accepts (RFC 8259 strings, escapes and numbers; well-formed
// UTF-8 per RFC 3629; no raw control characters).
class JsonScanner {
public:
    explicit JsonScanner(std::string_view text) : m_p(text.data()), m_end(text.data() + text.size()) {}

    void skipSpace() {
        while (m_p != m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
            ++m_p;
    }
    // Only white space is left.
    bool atEnd() {
        skipSpace();
        return m_p == m_end;
    }
    // Consumes `c` if it is the next token.
    bool take(char c) {
        skipSpace();
        if (m_p == m_end || *m_p != c)
            return false;
        ++m_p;
        return true;
    }
    // The next token starts with `c` (not consumed).
    bool peek(char c) {
        skipSpace();
        return m_p != m_end && *m_p == c;
    }

    // A string, decoded into `out`.
    bool string(std::string& out);
    // An integer without sign, fraction or exponent that fits 64 bits.
    bool unsignedInteger(std::uint64_t& out);
    // Any number, kept as a JSON parser keeps it; false for one whose value
    // is out of the double range (a parser refuses it).
    bool number(JsonNumber& out);
    // true or false.
    bool boolean(bool& out);
    // null.
    bool null();

private:
    bool escape(std::string& out);
    bool utf8(std::string& out);
    bool hex4(std::uint32_t& out);
    bool word(std::string_view w);

    const char* m_p;
    const char* m_end;
};

} // namespace gapscope
