#include "core/common/strict_json.h"

#include <set>
#include <vector>

namespace gapscope {

namespace {

using nlohmann::json;

// Before the document is built: a key given twice in one object, and nesting
// past the depth given.
class StructureCheck : public json::json_sax_t {
public:
    explicit StructureCheck(std::size_t maxDepth) : m_maxDepth(maxDepth) {}

    std::string problem;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (!m_keys.back().insert(k).second) {
            problem = "the key \"" + k + "\" appears twice in one object";
            return false;
        }
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const json::exception& e) override {
        problem = "not JSON at byte " + std::to_string(position) + " (" + e.what() + ")";
        return false;
    }

private:
    bool open() {
        if (m_keys.size() >= m_maxDepth) {
            problem = "nested deeper than " + std::to_string(m_maxDepth) + " levels";
            return false;
        }
        m_keys.emplace_back(); // arrays too: the depth counts them, their keys stay empty
        return true;
    }
    bool close() {
        m_keys.pop_back();
        return true;
    }
    std::size_t m_maxDepth;
    std::vector<std::set<std::string>> m_keys{{}};
};

} // namespace

StrictJson parseStrictJson(std::string_view text, std::size_t maxDepth) {
    StructureCheck check(maxDepth);
    if (!json::sax_parse(text, &check))
        return {std::nullopt, check.problem.empty() ? "not JSON" : check.problem};
    return {json::parse(text, nullptr, false), {}};
}

std::string shownJson(const nlohmann::json& value) {
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 60)
        text = text.substr(0, 57) + "...";
    return text;
}

} // namespace gapscope
