#include "core/common/python_json.h"

#include <algorithm>

namespace gapscope {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isIdentifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

} // namespace

std::size_t NormalizedJson::originalOffset(std::size_t offset) const {
    std::size_t before = 0;
    for (auto at : replaced_at)
        if (at < offset)
            ++before;
    return offset - std::min(offset, 2 * before);
}

NormalizedJson normalizePythonJson(std::string_view text) {
    static constexpr std::string_view kTokens[] = {"-Infinity", "Infinity", "NaN"};
    NormalizedJson result;
    std::string& out = result.text;
    out.reserve(text.size());
    bool inString = false;
    char lastSignificant = '\0'; // the last character outside strings that is not white space
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            // The run up to the next quote or backslash is copied whole: most of
            // a graph's bytes are inside strings.
            std::size_t end = i;
            while (end < text.size() && text[end] != '"' && text[end] != '\\')
                ++end;
            out.append(text.data() + i, end - i);
            if (end == text.size())
                break;
            i = end;
            out += text[i];
            if (text[i] == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (text[i] == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            out += c;
            lastSignificant = c;
            continue;
        }
        if (lastSignificant == ':' || lastSignificant == ',' || lastSignificant == '[') {
            bool matched = false;
            for (const auto token : kTokens) {
                const auto end = i + token.size();
                if (text.compare(i, token.size(), token) == 0 &&
                    (end == text.size() || !isIdentifierChar(text[end]))) {
                    result.replaced_at.push_back(out.size());
                    out += '"';
                    out += token;
                    out += '"';
                    i = end - 1;
                    lastSignificant = '"';
                    matched = true;
                    break;
                }
            }
            if (matched)
                continue;
        }
        out += c;
        if (!isSpace(c))
            lastSignificant = c;
    }
    return result;
}

} // namespace gapscope
