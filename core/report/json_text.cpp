#include "core/report/json_text.h"

namespace gapscope {

JsonText renderJson(const nlohmann::ordered_json& document, int indent) {
    JsonText out;
    try {
        out.text = document.dump(indent);
    } catch (const nlohmann::json::type_error&) { // 316: invalid UTF-8 in a string
        out.text = document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
        out.replaced = true;
    }
    return out;
}

std::string invalidUtf8Warning(const std::string& what) {
    return what +
           ": some strings of the input are not valid UTF-8; their invalid bytes are written as U+FFFD";
}

} // namespace gapscope
