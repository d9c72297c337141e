#include "core/report/fix_report.h"

#include "core/common/json_depth.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

namespace gapscope {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxFixReportBytes = std::size_t{64} << 20;

struct Fault {
    std::string field, message;
};

[[noreturn]] void fault(const std::string& field, const std::string& message) {
    throw Fault{field, message};
}

const json& member(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end())
        fault(where.empty() ? key : where + "." + key, std::string("missing '") + key + "'");
    return *it;
}

std::string text(const json& object, const char* key, const std::string& where, bool required = true) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        if (required)
            fault(where.empty() ? key : where + "." + key, std::string("missing '") + key + "'");
        return {};
    }
    if (!it->is_string())
        fault(where.empty() ? key : where + "." + key, "must be a string");
    return it->get<std::string>();
}

// A number, null, or the exporter's "inf"/"-inf"/"nan" for the values JSON lacks.
std::optional<double> number(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return std::nullopt;
    if (it->is_number())
        return it->get<double>();
    if (it->is_string()) {
        const auto s = it->get<std::string>();
        if (s == "inf")
            return HUGE_VAL;
        if (s == "-inf")
            return -HUGE_VAL;
        if (s == "nan")
            return std::nan("");
    }
    fault(where + "." + key, "must be a number, null, or \"inf\", \"-inf\", \"nan\"");
}

// A whole count the exporter wrote (bytes, ops): 0 to 2^53, or absent (0). A
// double past an integer's range converts to nothing defined (fuzz_fix_report).
std::int64_t count(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return 0;
    constexpr double kMax = 9007199254740992.0; // 2^53: every whole number below is exact
    const double v = it->is_number() ? it->get<double>() : -1;
    if (!(v >= 0 && v <= kMax) || v != std::floor(v))
        fault(where + "." + key, "must be a whole number from 0 to 2^53");
    return static_cast<std::int64_t>(v);
}

std::vector<std::string> strings(const json& object, const char* key, const std::string& where) {
    const auto& v = member(object, key, where);
    if (!v.is_array())
        fault(where + "." + key, "must be a list of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
            fault(where + "." + key + "[" + std::to_string(i) + "]", "must be a string");
        out.push_back(v[i].get<std::string>());
    }
    return out;
}

FixTrial trialOf(const json& v, const std::string& where) {
    if (!v.is_object())
        fault(where, "a trial must be an object");
    FixTrial t;
    t.keep_float = strings(v, "keep_float", where);
    t.output_snr_db = number(v, "output_snr_db", where);
    t.top1 = number(v, "top1", where);
    t.size_bytes = static_cast<std::uint64_t>(count(v, "size_bytes", where));
    t.ops_outside_delegates = count(v, "ops_outside_delegates", where);
    t.latency_ms = number(v, "latency_ms", where);
    t.error = text(v, "error", where, false);
    return t;
}

FixReport parse(const json& doc, const std::string& path) {
    if (!doc.is_object())
        fault("", "not a gapscope-capture fix report: the document is not a JSON object");
    FixReport r;
    r.path = path;
    r.recipe = text(doc, "recipe", "");
    r.target = text(doc, "target", "");
    r.stopped = text(doc, "stopped", "", false);
    r.snippet = text(doc, "snippet", "", false);
    const auto& met = member(doc, "met", "");
    if (!met.is_boolean())
        fault("met", "must be true or false");
    r.met = met.get<bool>();
    r.baseline = trialOf(member(doc, "baseline", ""), "baseline");
    if (const auto it = doc.find("best"); it != doc.end() && !it->is_null())
        r.best = trialOf(*it, "best");
    const auto& candidates = member(doc, "candidates", "");
    if (!candidates.is_array())
        fault("candidates", "must be a list");
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const std::string where = "candidates[" + std::to_string(i) + "]";
        const auto& c = candidates[i];
        if (!c.is_object())
            fault(where, "a candidate must be an object");
        FixCandidate out;
        out.module = text(c, "module", where);
        out.why = text(c, "why", where, false);
        out.recovered_db = number(c, "recovered_db", where);
        if (const auto it = c.find("trial"); it != c.end() && !it->is_null())
            out.trial = trialOf(*it, where + ".trial");
        r.candidates.push_back(std::move(out));
    }
    if (const auto it = doc.find("search"); it != doc.end() && it->is_array())
        for (std::size_t i = 0; i < it->size(); ++i)
            r.search.push_back(trialOf((*it)[i], "search[" + std::to_string(i) + "]"));
    if (const auto it = doc.find("fixed_session"); it != doc.end() && !it->is_null()) {
        if (!it->is_object())
            fault("fixed_session", "must be an object");
        const std::string relative = text(*it, "path", "fixed_session");
        namespace fs = std::filesystem;
        const fs::path base = fs::path(path).parent_path();
        const fs::path resolved = (base / relative).lexically_normal();
        // Inside the report's folder: a report never points the app elsewhere.
        const auto rel = resolved.lexically_relative(base.lexically_normal());
        if (fs::path(relative).is_absolute() || rel.empty() || rel == "." || *rel.begin() == "..")
            fault("fixed_session.path", "must name a folder inside the report's folder");
        r.fixed_session = resolved.string();
        r.fixed_output_snr_db = number(*it, "output_snr_db", "fixed_session");
    }
    return r;
}

} // namespace

Result<FixReport> parseFixReport(std::string_view text, const std::string& path) {
    if (text.empty())
        return makeError(ErrorCode::Empty, "the fix report is empty", path);
    if (text.size() > kMaxFixReportBytes)
        return makeError(ErrorCode::TooLarge, "a fix report over 64 MiB is not read", path);
    if (const auto deep = jsonTooDeep(text))
        return makeError(ErrorCode::Malformed, "JSON nested too deep", path, {},
                         static_cast<std::int64_t>(*deep));
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        return makeError(ErrorCode::Malformed, std::string("not JSON: ") + e.what(), path, {},
                         static_cast<std::int64_t>(e.byte));
    } catch (const json::exception& e) {
        // A number past double's range is an out_of_range, not a parse_error
        // (found by fuzz_fix_report: "54.1831e10840229922794").
        return makeError(ErrorCode::Malformed, std::string("not JSON Gapscope reads: ") + e.what(), path);
    }
    try {
        return parse(doc, path);
    } catch (const Fault& f) {
        return makeError(ErrorCode::Malformed, f.message, path, f.field);
    }
}

Result<FixReport> readFixReport(const MappedFile& file) {
    const auto bytes = file.bytes();
    return parseFixReport(std::string_view(reinterpret_cast<const char*>(bytes.data), bytes.size),
                          file.path());
}

Result<FixReport> loadFixReport(const std::string& path) {
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    file.value()->protectFromOutputs();
    return readFixReport(*file.value());
}

std::string fixReportBeside(const std::string& folder) {
    std::error_code ec;
    const auto path = std::filesystem::path(folder) / "fix" / "fix.json";
    return std::filesystem::is_regular_file(path, ec) ? path.string() : std::string();
}

} // namespace gapscope
