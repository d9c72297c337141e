#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// A JSON document written piece by piece to a sink, formatted exactly as
// renderJson (nlohmann's dump with indent 2) formats the whole document: a
// report of 200,000 rows or 20,000 runs is rendered one row or one run at a
// time, never held as one document (issue 55, class 8). Invalid UTF-8 in a
// string is replaced as renderJson replaces it, and `replaced` says so.
class JsonStream {
public:
    using Sink = std::function<void(std::string_view)>;
    explicit JsonStream(Sink sink);

    void beginObject(); // a value: at the top, in an array, or after key()
    void beginArray();
    void key(std::string_view name); // in an object: the next value's name
    void value(const nlohmann::ordered_json& v);
    void member(std::string_view name, const nlohmann::ordered_json& v) {
        key(name);
        value(v);
    }
    void end(); // closes the innermost object or array
    bool replaced() const { return replaced_; }

private:
    void beforeValue();
    void newlineAndIndent(std::size_t depth);

    struct Level {
        bool object = false;
        bool empty = true;
    };
    Sink sink_;
    std::vector<Level> levels_;
    bool keyed_ = false; // key() written, its value not yet
    bool replaced_ = false;
};

} // namespace gapscope
