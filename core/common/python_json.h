#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// Python's json module writes float('nan'), float('inf') and -inf as the bare
// tokens NaN, Infinity and -Infinity, which standard JSON (and nlohmann::json)
// rejects; torch.export serialises an attention mask's `-inf` that way. This
// rewrites each such token that stands where a value may (after ':', ',' or '[',
// outside any string) as the JSON string "NaN", "Infinity" or "-Infinity", the
// convention the capture format already uses for non-finite floats. Everything
// else, strings included, is copied unchanged. One pass, no recursion.
struct NormalizedJson {
    std::string text;
    std::vector<std::size_t> replaced_at; // offsets in `text` of each rewritten token's opening quote

    // The offset in the original text of `offset` in the rewritten one (each
    // rewrite added two quotes), for error messages that name a byte.
    std::size_t originalOffset(std::size_t offset) const;
};
NormalizedJson normalizePythonJson(std::string_view text);

} // namespace gapscope
