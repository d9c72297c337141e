#include "core/common/json_scanner.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace gapscope {

double JsonNumber::asDouble() const {
    switch (kind) {
    case Kind::Unsigned: return static_cast<double>(u);
    case Kind::Signed: return static_cast<double>(i);
    case Kind::Float: return f;
    }
    return f;
}

bool JsonNumber::asInt64(std::int64_t& out) const {
    if (kind == Kind::Signed) {
        out = i;
        return true;
    }
    if (kind == Kind::Unsigned && u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        out = static_cast<std::int64_t>(u);
        return true;
    }
    return false;
}

namespace {

bool plain(unsigned char c) {
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

bool digit(const char* p, const char* end) {
    return p != end && *p >= '0' && *p <= '9';
}

int hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | cp >> 6));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | cp >> 12));
        out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | cp >> 18));
        out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

} // namespace

bool JsonScanner::string(std::string& out) {
    out.clear();
    if (!take('"'))
        return false;
    for (;;) {
        // A run of plain ASCII copied whole: a capture document is one string
        // of megabytes inside the header, mostly such runs between escapes.
        const char* run = m_p;
        while (m_p != m_end && plain(static_cast<unsigned char>(*m_p)))
            ++m_p;
        out.append(run, static_cast<std::size_t>(m_p - run));
        if (m_p == m_end)
            return false;
        const auto c = static_cast<unsigned char>(*m_p);
        if (c == '"') {
            ++m_p;
            return true;
        }
        if (c == '\\') {
            if (!escape(out))
                return false;
        } else if (c >= 0x80) {
            if (!utf8(out))
                return false;
        } else {
            return false; // a raw control character
        }
    }
}

bool JsonScanner::unsignedInteger(std::uint64_t& out) {
    JsonNumber n;
    if (!peek('-') && number(n) && n.kind == JsonNumber::Kind::Unsigned) {
        out = n.u;
        return true;
    }
    return false;
}

bool JsonScanner::number(JsonNumber& out) {
    skipSpace();
    const char* start = m_p;
    const bool negative = m_p != m_end && *m_p == '-';
    if (negative)
        ++m_p;
    if (!digit(m_p, m_end))
        return false;
    const char* digits = m_p;
    if (*m_p == '0')
        ++m_p;
    else
        while (digit(m_p, m_end))
            ++m_p;
    if (digit(m_p, m_end))
        return false; // "01": a parser reads 0, then fails on 1
    const char* integerEnd = m_p;
    bool isFloat = false;
    // One digit or more.
    const auto digitRun = [this] {
        if (!digit(m_p, m_end))
            return false;
        while (digit(m_p, m_end))
            ++m_p;
        return true;
    };
    if (m_p != m_end && *m_p == '.') {
        ++m_p;
        if (!digitRun())
            return false;
        isFloat = true;
    }
    if (m_p != m_end && (*m_p == 'e' || *m_p == 'E')) {
        ++m_p;
        if (m_p != m_end && (*m_p == '+' || *m_p == '-'))
            ++m_p;
        if (!digitRun())
            return false;
        isFloat = true;
    }
    if (!isFloat) {
        std::uint64_t v = 0;
        for (const char* d = digits; d != integerEnd; ++d) {
            const auto x = static_cast<std::uint64_t>(*d - '0');
            if (v > (std::numeric_limits<std::uint64_t>::max() - x) / 10)
                return false; // past 64 bits a parser makes it a double: not ours to read
            v = v * 10 + x;
        }
        if (!negative) {
            out.kind = JsonNumber::Kind::Unsigned;
            out.u = v;
            return true;
        }
        constexpr auto kMinMagnitude =
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1;
        if (v > kMinMagnitude)
            return false;
        out.kind = JsonNumber::Kind::Signed;
        out.i = v == kMinMagnitude ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(v);
        return true;
    }
    // Correctly rounded, as the parser's strtod, and independent of the locale.
    double f = 0;
    const auto [end, ec] = std::from_chars(start, m_p, f);
    if (ec != std::errc() || end != m_p || !std::isfinite(f))
        return false;
    out.kind = JsonNumber::Kind::Float;
    out.f = f;
    return true;
}

bool JsonScanner::word(std::string_view w) {
    skipSpace();
    if (static_cast<std::size_t>(m_end - m_p) < w.size() || std::string_view(m_p, w.size()) != w)
        return false;
    m_p += w.size();
    return true;
}

bool JsonScanner::boolean(bool& out) {
    if (word("true")) {
        out = true;
        return true;
    }
    if (word("false")) {
        out = false;
        return true;
    }
    return false;
}

bool JsonScanner::null() {
    return word("null");
}

bool JsonScanner::hex4(std::uint32_t& out) {
    if (m_end - m_p < 4)
        return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
        const int h = hex(m_p[i]);
        if (h < 0)
            return false;
        out = out << 4 | static_cast<std::uint32_t>(h);
    }
    m_p += 4;
    return true;
}

// At a backslash.
bool JsonScanner::escape(std::string& out) {
    if (m_end - m_p < 2)
        return false;
    const char e = m_p[1];
    m_p += 2;
    switch (e) {
    case '"': out.push_back('"'); return true;
    case '\\': out.push_back('\\'); return true;
    case '/': out.push_back('/'); return true;
    case 'b': out.push_back('\b'); return true;
    case 'f': out.push_back('\f'); return true;
    case 'n': out.push_back('\n'); return true;
    case 'r': out.push_back('\r'); return true;
    case 't': out.push_back('\t'); return true;
    case 'u': break;
    default: return false;
    }
    std::uint32_t cp = 0;
    if (!hex4(cp))
        return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return false; // a low surrogate alone
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        std::uint32_t low = 0;
        if (m_end - m_p < 2 || m_p[0] != '\\' || m_p[1] != 'u')
            return false;
        m_p += 2;
        if (!hex4(low) || low < 0xDC00 || low > 0xDFFF)
            return false;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(out, cp);
    return true;
}

// A well-formed UTF-8 sequence (the Unicode standard's table 3-7: no overlong
// forms, no surrogates, nothing above U+10FFFF), copied.
bool JsonScanner::utf8(std::string& out) {
    const auto b = [&](std::ptrdiff_t i) { return static_cast<unsigned char>(m_p[i]); };
    const auto cont = [&](std::ptrdiff_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
        return m_end - m_p > i && b(i) >= lo && b(i) <= hi;
    };
    const unsigned c = b(0);
    std::ptrdiff_t n = 0;
    if (c >= 0xC2 && c <= 0xDF)
        n = cont(1) ? 2 : 0;
    else if (c == 0xE0)
        n = cont(1, 0xA0) && cont(2) ? 3 : 0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
        n = cont(1) && cont(2) ? 3 : 0;
    else if (c == 0xED)
        n = cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
    else if (c == 0xF0)
        n = cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    else if (c >= 0xF1 && c <= 0xF3)
        n = cont(1) && cont(2) && cont(3) ? 4 : 0;
    else if (c == 0xF4)
        n = cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
    if (n == 0)
        return false;
    out.append(m_p, static_cast<std::size_t>(n));
    m_p += n;
    return true;
}

} // namespace gapscope
