#include "core/report/safe_text.h"

#include "core/common/utf8.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <optional>

namespace gapscope {

std::string csvCell(std::string_view text) {
    const bool formula = !text.empty() && (text[0] == '=' || text[0] == '+' || text[0] == '-' ||
                                           text[0] == '@' || text[0] == '\t' || text[0] == '\r');
    if (!formula && text.find_first_of(",\"\n\r") == std::string_view::npos)
        return std::string(text);
    std::string q = formula ? "\"'" : "\"";
    for (char ch : text) {
        if (ch == '"')
            q += '"';
        q += ch;
    }
    return q + "\"";
}

namespace {

std::string hexByte(unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    return buf;
}

// The bidirectional formatting characters (Unicode's Bidi_Control: ALM U+061C,
// LRM/RLM U+200E/F, the embeddings and overrides U+202A..U+202E, the isolates
// U+2066..U+2069): a name holding U+202E (right-to-left override) shows the
// rest of a terminal line reversed, so that "relu.exe" can read as "exe.uler"
// and a row seem to say what it does not ("Trojan Source"). Their code point, or
// nothing.
std::optional<unsigned> bidiControl(std::string_view s, std::size_t i, std::size_t len) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (len == 2 && b(0) == 0xd8 && b(1) == 0x9c)
        return 0x061c;
    if (len != 3 || b(0) != 0xe2)
        return std::nullopt;
    const unsigned cp = 0x2000u | ((b(1) & 0x3fu) << 6) | (b(2) & 0x3fu);
    if (cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
        return cp;
    return std::nullopt;
}

// A character as a terminal may show it: control characters visibly escaped.
void appendVisible(std::string& out, std::string_view s, std::size_t i, std::size_t len, bool keepNewlines) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (len == 0) {
        out += hexByte(c);
        return;
    }
    if (len == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) { // C1: U+0080..U+009F
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(s[i + 1]));
        out += buf;
        return;
    }
    if (const auto cp = bidiControl(s, i, len)) { // issue 55, class 10
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", *cp);
        out += buf;
        return;
    }
    if (len > 1 || (c >= 0x20 && c != 0x7f) || (c == '\n' && keepNewlines)) {
        out.append(s.substr(i, len));
        return;
    }
    switch (c) {
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case 0x1b: out += "\\e"; break;
    case 0: out += "\\0"; break;
    case 0x7f: out += "\\u007f"; break; // as JSON writes it: a JSON document on stdout stays valid
    default: out += hexByte(c);
    }
}

} // namespace

std::string terminalText(std::string_view text, bool keepNewlines) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = utf8Length(text, i);
        appendVisible(out, text, i, len, keepNewlines);
        i += len == 0 ? 1 : len;
    }
    return out;
}

std::size_t characterBoundary(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes)
        return text.size();
    std::size_t cut = maxBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
        --cut; // text[cut] would continue a sequence begun before it
    return cut;
}

std::string echoedName(std::string_view name, std::size_t maxBytes) {
    const std::size_t cut = characterBoundary(name, maxBytes);
    std::string out = terminalText(name.substr(0, cut), false);
    if (cut < name.size())
        out += "… (" + std::to_string(name.size() - cut) + " more bytes)";
    return out;
}

std::string markdownText(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 8);
    const auto wordChar = [&](std::size_t i) {
        return i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) != 0);
    };
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = utf8Length(text, i);
        const char c = text[i];
        if (len != 1) {
            appendVisible(out, text, i, len, false);
            i += len == 0 ? 1 : len;
            continue;
        }
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '\n':
        case '\r': out += ' '; break;
        case '_':
            if (i > 0 && wordChar(i - 1) && wordChar(i + 1))
                out += '_';
            else
                out += "\\_";
            break;
        case '\\':
        case '`':
        case '*':
        case '[':
        case ']':
        case '|':
        case '~':
        case '!':
        case '#':
            out += '\\';
            out += c;
            break;
        default: appendVisible(out, text, i, 1, false);
        }
        ++i;
    }
    return out;
}

} // namespace gapscope
