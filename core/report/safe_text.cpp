#include "core/report/safe_text.h"

#include "core/common/utf8.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

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
