#include "core/compare/op_kind.h"

#include <array>
#include <cctype>
#include <utility>

namespace gapscope {

namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Drops "_<digits>": the graph's counter of nodes with the same op.
std::string_view withoutCounter(std::string_view s) {
    const auto underscore = s.rfind('_');
    if (underscore == std::string_view::npos || underscore + 1 == s.size() || underscore == 0)
        return s;
    for (std::size_t i = underscore + 1; i < s.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(s[i])))
            return s;
    return s.substr(0, underscore);
}

// ATen overload names as edge_after_transform spells them after the op.
// The longer first: "_dim_intlist" before "_intlist".
constexpr std::array<std::string_view, 13> kOverloads = {
    "_dim_intlist", "_tensor_mode", "_scalar_mode", "_using_ints", "_correction", "_default", "_intlist",
    "_tensor",      "_scalar",      "_input",       "_self",       "_int",        "_dim"};

constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kSynonyms = {{
    {"convolution", "conv"},
    {"conv1d", "conv"},
    {"conv2d", "conv"},
    {"conv3d", "conv"},
    {"_native_batch_norm_legit_no_training", "batch_norm"},
    {"native_batch_norm", "batch_norm"},
    {"native_layer_norm", "layer_norm"},
    {"_softmax", "softmax"},
    {"reshape", "view"},
    {"_unsafe_view", "view"},
    {"mm", "matmul"},
    {"addmm", "matmul"},
    {"bmm", "matmul"},
    {"transpose", "permute"},
}};

} // namespace

std::string opKind(std::string_view name) {
    std::string lower(name);
    for (auto& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view s = withoutCounter(lower);
    if (s.rfind("aten_", 0) == 0) {
        s.remove_prefix(5);
        for (const auto overload : kOverloads)
            if (endsWith(s, overload) && s.size() > overload.size()) {
                s.remove_suffix(overload.size());
                break;
            }
    }
    if (endsWith(s, "_copy") && s.size() > 5)
        s.remove_suffix(5);
    // An in-place op is its functional twin (issue 56): ReLU(inplace=True) exports
    // `relu_`, which QNN and the edge dialect spell `aten_relu_default`.
    if (endsWith(s, "_") && s.size() > 1 && s.front() != '_')
        s.remove_suffix(1);
    for (const auto& [from, to] : kSynonyms)
        if (s == from)
            return std::string(to);
    return std::string(s);
}

} // namespace gapscope
