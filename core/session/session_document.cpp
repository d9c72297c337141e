#include "core/session/session_document.h"

#include "core/common/strict_json.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace gapscope {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxDepth = 32; // the format nests two levels; anything deeper is not ours

Error problem(std::string message) {
    return Error{ErrorCode::Malformed, std::move(message), {}};
}

std::optional<Error> optionalString(const json& o, const char* key, std::string& out) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null())
        return std::nullopt;
    if (!it->is_string())
        return problem("\"" + std::string(key) + "\": " + shownJson(*it) + " is not a string");
    out = it->get<std::string>();
    return std::nullopt;
}

// A whole number from 0 to INT_MAX: 0.5 and 1e10 are errors, not run 0.
std::optional<int> wholeNumber(const json& v) {
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<int>::max())
                   ? std::optional<int>(int(v.get<std::uint64_t>()))
                   : std::nullopt;
    if (v.is_number_integer())
        return std::nullopt; // negative (non-negative integers parse as unsigned)
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::floor(d) == d && d >= 0 && d <= std::numeric_limits<int>::max())
            return int(d);
    }
    return std::nullopt;
}

std::optional<Error> readThreshold(const json& t, SessionDocument& s) {
    const auto metric = t.is_object() && t.contains("metric") && t["metric"].is_string()
                            ? findMetric(t["metric"].get<std::string>())
                            : std::nullopt;
    if (!metric)
        return problem("\"threshold\": " + shownJson(t) + " names no metric Gapscope knows");
    const auto value = t.find("value");
    if (value == t.end() || !value->is_number() || !std::isfinite(value->get<double>()))
        return problem("\"threshold\": " + shownJson(t) + " has no finite \"value\"");
    s.threshold = MetricThreshold{metric->id, value->get<double>()};
    return std::nullopt;
}

std::optional<Error> readFields(const json& o, SessionDocument& s) {
    const auto files = o.find("files");
    if (files == o.end() || !files->is_array())
        return problem("\"files\" is missing or not a list of paths");
    for (std::size_t i = 0; i < files->size(); ++i) {
        const json& f = (*files)[i];
        if (!f.is_string() || f.get<std::string>().empty())
            return problem("\"files\"[" + std::to_string(i) + "]: " + shownJson(f) + " is not a path");
        s.files.push_back(f.get<std::string>());
    }
    if (s.files.empty())
        return problem("the session lists no files (\"files\" is empty)");
    if (const auto run = o.find("run"); run != o.end() && !run->is_null()) {
        s.run = wholeNumber(*run);
        if (!s.run)
            return problem("\"run\": " + shownJson(*run) + " is not a run number (a whole number from 0)");
    }
    for (const auto& [key, out] : {std::pair<const char*, std::string*>{"method", &s.method},
                                   {inputRoleKey(InputRole::Capture), &s.capture},
                                   {inputRoleKey(InputRole::DebugBuffer), &s.debug_buffer},
                                   {"filter", &s.filter}})
        if (auto err = optionalString(o, key, *out))
            return err;
    if (const auto t = o.find("threshold"); t != o.end() && !t->is_null())
        if (auto err = readThreshold(*t, s))
            return err;
    if (const auto with = o.find("compare_with"); with != o.end() && !with->is_null()) {
        if (!with->is_array())
            return problem("\"compare_with\": " + shownJson(*with) + " is not a list of paths");
        for (std::size_t i = 0; i < with->size(); ++i) {
            const json& f = (*with)[i];
            if (!f.is_string() || f.get<std::string>().empty())
                return problem("\"compare_with\"[" + std::to_string(i) + "]: " + shownJson(f) +
                               " is not a path");
            s.compare_with.push_back(f.get<std::string>());
        }
    }
    if (const auto sel = o.find("selected_op"); sel != o.end() && !sel->is_null()) {
        const auto row = sel->is_object() && sel->contains("row") ? wholeNumber((*sel)["row"]) : std::nullopt;
        if (!row)
            return problem("\"selected_op\": " + shownJson(*sel) + " has no row number");
        s.selected_row = row;
        if (auto err = optionalString(*sel, "name", s.selected_op))
            return problem("\"selected_op\": " + err->message);
    }
    return std::nullopt;
}

} // namespace

bool SessionDocument::operator==(const SessionDocument& o) const {
    const auto sameThreshold = [](const std::optional<MetricThreshold>& a,
                                  const std::optional<MetricThreshold>& b) {
        return a.has_value() == b.has_value() && (!a || (a->metric == b->metric && a->value == b->value));
    };
    return files == o.files && run == o.run && method == o.method && capture == o.capture &&
           debug_buffer == o.debug_buffer && sameThreshold(threshold, o.threshold) && filter == o.filter &&
           selected_row == o.selected_row && selected_op == o.selected_op && compare_with == o.compare_with;
}

Result<SessionDocument> parseSessionDocument(std::string_view text) {
    if (text.size() > kMaxSessionDocument)
        return problem(std::to_string(text.size()) + " bytes, over the 1 MiB a session file can be");
    const StrictJson parsed = parseStrictJson(text, kMaxDepth);
    if (!parsed.value)
        return problem(parsed.problem);
    const json& o = *parsed.value;
    if (!o.is_object())
        return problem("not a JSON object");
    const auto version = o.find(kSessionDocumentKey);
    if (version == o.end() || *version != 1)
        return problem("not a Gapscope session file (no \"gapscope_session\": 1)");
    SessionDocument s;
    if (auto err = readFields(o, s))
        return *err;
    return s;
}

std::string sessionDocumentText(const SessionDocument& s) {
    json o = json::object();
    o[kSessionDocumentKey] = 1;
    o["files"] = s.files;
    o["run"] = s.run ? json(*s.run) : json(nullptr);
    for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"method", &s.method},
                                     {inputRoleKey(InputRole::Capture), &s.capture},
                                     {inputRoleKey(InputRole::DebugBuffer), &s.debug_buffer}})
        if (!value->empty())
            o[key] = *value;
    if (s.threshold)
        o["threshold"] = {{"metric", metricName(s.threshold->metric)}, {"value", s.threshold->value}};
    if (!s.filter.empty())
        o["filter"] = s.filter;
    if (s.selected_row)
        o["selected_op"] = {{"row", *s.selected_row}, {"name", s.selected_op}};
    if (!s.compare_with.empty())
        o["compare_with"] = s.compare_with;
    return o.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace gapscope
