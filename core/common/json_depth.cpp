#include "core/common/json_depth.h"

namespace gapscope {

std::optional<std::size_t> jsonTooDeep(std::string_view text, std::size_t maxDepth) {
    std::size_t depth = 0;
    bool inString = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped) {
                escaped = false;
                continue;
            }
            // Skip to the next quote or backslash: strings hold most of the bytes.
            while (i < text.size() && text[i] != '"' && text[i] != '\\')
                ++i;
            if (i == text.size())
                break;
            if (text[i] == '\\')
                escaped = true;
            else
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

} // namespace gapscope
