#include "core/capture/safetensors_header_scan.h"

#include <cstring>
#include <limits>

namespace gapscope {

namespace {

// A cursor over the header text. Every step either advances over what it
// expects or fails; a failure ends the scan (the DOM reader takes over), so no
// step needs to say why.
class Scanner {
public:
    explicit Scanner(std::string_view text) : m_p(text.data()), m_end(text.data() + text.size()) {}

    bool atEnd() {
        skipSpace();
        return m_p == m_end;
    }

    void skipSpace() {
        while (m_p != m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
            ++m_p;
    }

    bool take(char c) {
        skipSpace();
        if (m_p == m_end || *m_p != c)
            return false;
        ++m_p;
        return true;
    }

    // The next token is `c` (not consumed).
    bool peek(char c) {
        skipSpace();
        return m_p != m_end && *m_p == c;
    }

    // A JSON string, decoded into `out`.
    bool string(std::string& out) {
        out.clear();
        if (!take('"'))
            return false;
        for (;;) {
            // A run of plain ASCII copied whole: the metadata document is one
            // string of megabytes, mostly such runs between escaped quotes.
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

    // A JSON integer without sign, fraction or exponent that fits 64 bits
    // unsigned (what a JSON parser keeps as an unsigned integer).
    bool unsignedInteger(std::uint64_t& out) {
        skipSpace();
        if (m_p == m_end || *m_p < '0' || *m_p > '9')
            return false;
        if (*m_p == '0') {
            ++m_p;
            out = 0;
        } else {
            std::uint64_t v = 0;
            while (m_p != m_end && *m_p >= '0' && *m_p <= '9') {
                const auto d = static_cast<std::uint64_t>(*m_p - '0');
                if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
                    return false; // a parser would make it a float
                v = v * 10 + d;
                ++m_p;
            }
            out = v;
        }
        // "01", "1.5", "1e3": not a plain integer.
        return m_p == m_end || (*m_p != '.' && *m_p != 'e' && *m_p != 'E' && (*m_p < '0' || *m_p > '9'));
    }

private:
    static bool plain(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

    static int hex(char c) {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    }

    bool hex4(std::uint32_t& out) {
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

    static void append(std::string& out, std::uint32_t cp) {
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

    // At a backslash.
    bool escape(std::string& out) {
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
        append(out, cp);
        return true;
    }

    // A well-formed UTF-8 sequence (the Unicode standard's table 3-7: no
    // overlong forms, no surrogates, nothing above U+10FFFF), copied.
    bool utf8(std::string& out) {
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

    const char* m_p;
    const char* m_end;
};

// {"dtype": "...", "shape": [...], "data_offsets": [b, e]}, the keys in any
// order, each exactly once.
bool tensorEntry(Scanner& s, ScannedTensorEntry& t, std::string& key) {
    if (!s.take('{'))
        return false;
    bool dtype = false, shape = false, offsets = false;
    if (s.peek('}'))
        return false;
    do {
        if (!s.string(key) || !s.take(':'))
            return false;
        if (key == "dtype" && !dtype) {
            dtype = true;
            if (!s.string(t.dtype))
                return false;
        } else if (key == "shape" && !shape) {
            shape = true;
            if (!s.take('['))
                return false;
            if (!s.take(']')) {
                do {
                    std::uint64_t d = 0;
                    if (!s.unsignedInteger(d) ||
                        d > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                        return false;
                    t.shape.push_back(static_cast<std::int64_t>(d));
                } while (s.take(','));
                if (!s.take(']'))
                    return false;
            }
        } else if (key == "data_offsets" && !offsets) {
            offsets = true;
            if (!s.take('[') || !s.unsignedInteger(t.begin) || !s.take(',') || !s.unsignedInteger(t.end) ||
                !s.take(']'))
                return false;
        } else {
            return false; // another key, or one given twice
        }
    } while (s.take(','));
    return s.take('}') && dtype && shape && offsets;
}

bool metadataEntries(Scanner& s, std::vector<std::pair<std::string, std::string>>& out) {
    if (!s.take('{'))
        return false;
    if (s.take('}'))
        return true;
    do {
        std::pair<std::string, std::string> kv;
        if (!s.string(kv.first) || !s.take(':') || !s.string(kv.second))
            return false;
        out.push_back(std::move(kv));
    } while (s.take(','));
    return s.take('}');
}

} // namespace

std::optional<ScannedHeader> scanSafetensorsHeader(std::string_view text) {
    Scanner s(text);
    ScannedHeader out;
    bool metadata = false;
    if (!s.take('{'))
        return std::nullopt;
    if (!s.take('}')) {
        std::string key, inner;
        do {
            if (!s.string(key) || !s.take(':'))
                return std::nullopt;
            if (key == "__metadata__") {
                if (metadata || !metadataEntries(s, out.metadata))
                    return std::nullopt;
                metadata = true;
                continue;
            }
            ScannedTensorEntry t;
            t.name = key;
            if (!tensorEntry(s, t, inner))
                return std::nullopt;
            out.tensors.push_back(std::move(t));
        } while (s.take(','));
        if (!s.take('}'))
            return std::nullopt;
    }
    if (!s.atEnd())
        return std::nullopt;
    return out;
}

} // namespace gapscope
