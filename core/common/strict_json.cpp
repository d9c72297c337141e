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

const nlohmann::json& jsonMember(const nlohmann::json& object, const FieldPath& at, const char* key) {
    const auto it = object.find(key);
    if (it == object.end())
        throw JsonFault{FieldPath(at, key).str(), "missing"};
    return *it;
}

const nlohmann::json& jsonObject(const nlohmann::json& value, const FieldPath& at) {
    if (!value.is_object())
        throw JsonFault{at.str(), shownJson(value) + " is not an object"};
    return value;
}

std::string jsonText(const nlohmann::json& object, const FieldPath& at, const char* key) {
    const nlohmann::json& v = jsonMember(object, at, key);
    if (!v.is_string())
        throw JsonFault{FieldPath(at, key).str(), shownJson(v) + " is not a string"};
    return v.get<std::string>();
}

std::vector<std::string> jsonTexts(const nlohmann::json& object, const FieldPath& at, const char* key) {
    const FieldPath here(at, key);
    const nlohmann::json& v = jsonMember(object, at, key);
    if (!v.is_array())
        throw JsonFault{here.str(), shownJson(v) + " is not a list"};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
            throw JsonFault{FieldPath(here, i).str(), shownJson(v[i]) + " is not a string"};
        out.push_back(v[i].get<std::string>());
    }
    return out;
}

} // namespace gapscope
