#include "core/report/json_stream.h"

#include "core/report/json_text.h"

namespace gapscope {

JsonStream::JsonStream(Sink sink) : sink_(std::move(sink)) {}

void JsonStream::newlineAndIndent(std::size_t depth) {
    sink_("\n");
    sink_(std::string(2 * depth, ' '));
}

void JsonStream::beforeValue() {
    if (keyed_) {
        keyed_ = false;
        return;
    }
    if (levels_.empty())
        return;
    Level& level = levels_.back();
    sink_(level.empty ? "" : ",");
    level.empty = false;
    newlineAndIndent(levels_.size());
}

void JsonStream::key(std::string_view name) {
    Level& level = levels_.back();
    sink_(level.empty ? "" : ",");
    level.empty = false;
    newlineAndIndent(levels_.size());
    const auto rendered = renderJson(nlohmann::ordered_json(std::string(name)));
    replaced_ = replaced_ || rendered.replaced;
    sink_(rendered.text);
    sink_(": ");
    keyed_ = true;
}

void JsonStream::beginObject() {
    beforeValue();
    sink_("{");
    levels_.push_back({true, true});
}

void JsonStream::beginArray() {
    beforeValue();
    sink_("[");
    levels_.push_back({false, true});
}

void JsonStream::value(const nlohmann::ordered_json& v) {
    beforeValue();
    const auto rendered = renderJson(v);
    replaced_ = replaced_ || rendered.replaced;
    if (levels_.empty()) {
        sink_(rendered.text);
        return;
    }
    // The value's own lines, shifted to this depth (JSON strings hold no raw newline).
    const std::string indent = "\n" + std::string(2 * levels_.size(), ' ');
    std::size_t from = 0;
    for (std::size_t at = rendered.text.find('\n'); at != std::string::npos;
         from = at + 1, at = rendered.text.find('\n', from)) {
        sink_(std::string_view(rendered.text).substr(from, at - from));
        sink_(indent);
    }
    sink_(std::string_view(rendered.text).substr(from));
}

void JsonStream::end() {
    const Level level = levels_.back();
    levels_.pop_back();
    if (!level.empty)
        newlineAndIndent(levels_.size());
    sink_(level.object ? "}" : "]");
}

} // namespace gapscope
