#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gapscope {

// A JSON document as text. Strings from inputs (an ETDump's event names, a
// delegate's ids) need not be UTF-8, which JSON text must be: such bytes are
// replaced by U+FFFD, and `replaced` says so, for a warning, where
// nlohmann::json::dump would throw and lose the whole report.
struct JsonText {
    std::string text;
    bool replaced = false;
};
JsonText renderJson(const nlohmann::ordered_json& document, int indent = 2);

// The warning for a rendering that replaced bytes, naming what was rendered.
std::string invalidUtf8Warning(const std::string& what);

} // namespace gapscope
