#include "core/report/report_reader.h"

#include "core/capture/ondemand_fields.h"
#include "core/common/on_demand_json.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/row_name.h"
#include "core/report/compare_report.h"

#include <cmath>
#include <filesystem>
#include <limits>

namespace gapscope {

namespace {

using namespace ondemand_fields;
using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;
using simdjson::ondemand::value;

// Far beyond any report (a 50,000-op session writes tens of MB): refused
// before the parser's padded copy is made.
constexpr std::size_t kMaxReportBytes = std::size_t(1) << 30;

std::size_t unsignedOf(value& v, const std::string& field) {
    const auto n = onDemandUint64(v);
    if (!n || *n > std::numeric_limits<std::uint32_t>::max())
        fault(field, "must be an integer of 0 or more");
    return static_cast<std::size_t>(*n);
}

std::string stringField(value& v, const std::string& field) {
    auto s = stringOf(v);
    if (!s)
        fault(field, "must be a string");
    return std::move(*s);
}

std::vector<std::string> strings(value& v, const std::string& field) {
    if (v.type().value() != json_type::array)
        fault(field, "must be a list of strings");
    std::vector<std::string> out;
    for (auto item : v.get_array()) {
        value iv = item.value();
        out.push_back(stringField(iv, field + "[" + std::to_string(out.size()) + "]"));
    }
    return out;
}

// A metric's value as comparisonToJson writes it: a number, null, or the
// strings "NaN", "Infinity", "-Infinity".
std::optional<double> metricNumber(value& v, const std::string& field) {
    if (isNull(v))
        return std::nullopt;
    if (v.type().value() == json_type::number)
        return v.get_double().value();
    const auto s = stringOf(v);
    if (s == std::string("NaN"))
        return std::numeric_limits<double>::quiet_NaN();
    if (s == std::string("Infinity"))
        return std::numeric_limits<double>::infinity();
    if (s == std::string("-Infinity"))
        return -std::numeric_limits<double>::infinity();
    fault(field, "must be a number, null, \"NaN\", \"Infinity\" or \"-Infinity\"");
}

RowStatus statusOf(const std::string& name, const std::string& field) {
    for (const auto s : {RowStatus::Ok, RowStatus::Broadcast, RowStatus::MissingData, RowStatus::Invalid})
        if (name == rowStatusName(s))
            return s;
    fault(field, "'" + name + "' is not a row status (ok, broadcast, missing_data, invalid)");
}

void readMetrics(value& v, const std::string& field, RunRow& row) {
    if (v.type().value() != json_type::object)
        fault(field, "must be an object of metric values");
    const auto& catalog = metricCatalog();
    row.metrics.assign(catalog.size(), std::nullopt);
    std::vector<bool> seen(catalog.size());
    for (auto f : v.get_object()) {
        const std::string key(f.unescaped_key().value());
        value mv = f.value().value();
        const auto metric = findMetric(key);
        if (!metric) { // a metric this Gapscope does not know
            validateSkipped(mv, 3);
            continue;
        }
        const std::size_t k = metricIndex(metric->id);
        if (seen[k])
            fault(field, "the key '" + key + "' appears twice");
        seen[k] = true;
        row.metrics[k] = metricNumber(mv, field + "." + key);
    }
}

// A row's `latency` (schema 3): its p50 (ms) and share; null when untimed.
void readLatency(value& v, const std::string& field, RunRow& row) {
    if (isNull(v))
        return;
    if (v.type().value() != json_type::object)
        fault(field, "must be an object or null");
    static constexpr std::string_view kKeys[] = {"p50", "share"};
    forEachKey(
        v.get_object().value(), kKeys, field,
        [&](unsigned k, std::string_view key, value& f) {
            const std::string at = field + "." + std::string(key);
            if (isNull(f))
                return;
            const auto x = metricNumber(f, at);
            if (!x || !(*x >= 0) || !std::isfinite(*x))
                fault(at, "must be a finite number, 0 or more");
            (k == 0 ? row.time_ms : row.time_share) = *x;
        },
        2);
}

// A row's `reference_probe`: its element count and at most kReferenceProbeSize values.
void readProbe(value& v, const std::string& field, RunRow& row) {
    if (isNull(v))
        return;
    if (v.type().value() != json_type::object)
        fault(field, "must be an object or null");
    static constexpr std::string_view kKeys[] = {"elements", "values"};
    ReferenceProbe probe;
    const Keys keys = forEachKey(
        v.get_object().value(), kKeys, field,
        [&](unsigned k, std::string_view key, value& f) {
            const std::string at = field + "." + std::string(key);
            if (k == 0) {
                const auto n = onDemandUint64(f);
                if (!n || *n == 0)
                    fault(at, "must be an integer of 1 or more");
                probe.elements = *n;
                return;
            }
            if (f.type().value() != json_type::array)
                fault(at, "must be a list of numbers");
            for (auto item : f.get_array()) {
                value iv = item.value();
                const std::string each = at + "[" + std::to_string(probe.values.size()) + "]";
                if (probe.values.size() == kReferenceProbeSize)
                    fault(at, "holds more than " + std::to_string(kReferenceProbeSize) + " values");
                const auto x = metricNumber(iv, each);
                if (!x)
                    fault(each, "must be a number");
                probe.values.push_back(*x);
            }
        },
        3);
    if (!keys.has(0) || !keys.has(1))
        fault(field, "must have 'elements' and 'values'");
    if (probe.values.size() != std::min<std::uint64_t>(probe.elements, kReferenceProbeSize))
        fault(field + ".values",
              "must hold min(elements, " + std::to_string(kReferenceProbeSize) + ") values");
    row.reference_probe = std::move(probe);
}

RunRow readRow(value& v, const std::string& field) {
    if (v.type().value() != json_type::object)
        fault(field, "a row must be an object");
    static constexpr std::string_view kKeys[] = {
        "index",           "aot_debug_handle", "aot_ops",         "output_index", "shapes",
        "status",          "reason",           "metrics",         "source",       "compared_node",
        "compared_handle", "latency",          "reference_probe", "tap"};
    RunRow row;
    const Keys keys = forEachKey(
        v.get_object().value(), kKeys, field,
        [&](unsigned k, std::string_view key, value& f) {
            const std::string at = field + "." + std::string(key);
            switch (k) {
            case 0: row.index = unsignedOf(f, at); break;
            case 1:
                if (f.type().value() != json_type::array)
                    fault(at, "must be a list of integers");
                for (auto h : f.get_array()) {
                    const auto n = onDemandInt64(h.value());
                    if (!n)
                        fault(at, "must be a list of integers");
                    row.aot_debug_handle.push_back(*n);
                }
                break;
            case 2: row.aot_ops = strings(f, at); break;
            case 3: {
                const auto n = onDemandInt64(f);
                if (!n || *n < -1024 || *n > 1024)
                    fault(at, "must be a small integer");
                row.output_index = static_cast<int>(*n);
                break;
            }
            case 4:
                for (const auto& s : strings(f, at))
                    row.shapes += (row.shapes.empty() ? "" : "; ") + s;
                break;
            case 5: row.status = statusOf(stringField(f, at), at); break;
            case 6:
                if (!isNull(f))
                    row.reason = stringField(f, at);
                break;
            case 7: readMetrics(f, at, row); break;
            case 8:
                if (!isNull(f))
                    row.source = stringField(f, at);
                break;
            case 9: row.compared_node = stringField(f, at); break;
            case 10: {
                const auto n = onDemandInt64(f);
                if (!n || *n < -1)
                    fault(at, "must be a debug handle (an integer), or -1");
                row.compared_handle = *n;
                break;
            }
            case 11: readLatency(f, at, row); break;
            case 12: readProbe(f, at, row); break;
            case 13:
                if (isNull(f))
                    break;
                if (f.type().value() != json_type::object)
                    fault(at, "must be an object (a tap's) or null");
                row.tap = true;
                for (auto member : f.get_object()) {
                    auto name = member.unescaped_key();
                    if (!name.error() && name.value() == "bounds") {
                        bool bounds = false;
                        if (member.value().get_bool().get(bounds))
                            fault(at + ".bounds", "must be true or false");
                        row.bounds = bounds;
                    } else {
                        validateSkipped(member.value(), 2);
                    }
                }
                break;
            }
        },
        3);
    for (const unsigned required : {0u, 1u, 2u, 5u, 7u})
        if (!keys.has(required))
            fault(field, "a row must have '" + std::string(kKeys[required]) + "'");
    if (row.metrics.empty())
        row.metrics.assign(metricCatalog().size(), std::nullopt);
    row.name = displayOpName(row.aot_ops);
    if (row.compared_node.empty()) // schema 1
        row.compared_node = comparedOp(row.aot_ops);
    if (!keys.has(10) && !row.aot_debug_handle.empty())
        row.compared_handle = row.aot_debug_handle.back();
    return row;
}

void readSettings(value& v, RunSummary& run) {
    if (v.type().value() != json_type::object)
        return validateSkipped(v, 2);
    static constexpr std::string_view kKeys[] = {"settings"};
    forEachKey(
        v.get_object().value(), kKeys, "provenance",
        [&](unsigned, std::string_view, value& settings) {
            if (settings.type().value() != json_type::object)
                return validateSkipped(settings, 3);
            static constexpr std::string_view kSettings[] = {"method", "run"};
            forEachKey(
                settings.get_object().value(), kSettings, "provenance.settings",
                [&](unsigned k, std::string_view, value& f) {
                    if (k == 0)
                        run.method = stringField(f, "provenance.settings.method");
                    else
                        run.run = unsignedOf(f, "provenance.settings.run");
                },
                4);
        },
        3);
}

// One report: the document of `compare --json`, or one of an --all-runs report's runs.
RunSummary readRun(simdjson::ondemand::object object, const std::string& field, bool& hasRows) {
    static constexpr std::string_view kKeys[] = {
        "rows", "reference_program", "provenance", "schema_version", "format", "reference_kind"};
    RunSummary run;
    const Keys keys = forEachKey(
        object, kKeys, field,
        [&](unsigned k, std::string_view key, value& f) {
            const std::string at = (field.empty() ? "" : field + ".") + std::string(key);
            switch (k) {
            case 0:
                if (f.type().value() != json_type::array)
                    fault(at, "'rows' must be a list");
                for (auto item : f.get_array()) {
                    value rv = item.value();
                    run.rows.push_back(readRow(rv, at + "[" + std::to_string(run.rows.size()) + "]"));
                }
                break;
            case 1:
                if (!isNull(f))
                    run.reference_program = stringField(f, at);
                break;
            case 2: readSettings(f, run); break;
            case 3: validateSkipped(f, 1); break; // read first, by readSavedReport
            case 4:
                if (stringOf(f) == std::string("gapscope.diff"))
                    fault(at, "this is a diff of two reports (gapscope-cli diff), not a report");
                break;
            case 5:
                if (!isNull(f))
                    run.reference_kind = stringField(f, at);
                break;
            }
        },
        1);
    hasRows = keys.has(0);
    return run;
}

int schemaVersion(simdjson::ondemand::object doc) {
    value v;
    if (doc.find_field_unordered("schema_version").get(v))
        return 1; // written before reports had a version: read as version 1
    const auto n = onDemandInt64(v);
    if (!n || *n < 1)
        fault("schema_version", "'schema_version' must be an integer of 1 or more");
    if (*n > kReportSchemaVersion)
        fault("schema_version",
              "report schema version " + std::to_string(*n) +
                  " was written by a newer Gapscope; this one reads versions 1 to " +
                  std::to_string(kReportSchemaVersion),
              ErrorCode::Unsupported);
    return static_cast<int>(*n);
}

} // namespace

Result<SavedReport> readSavedReport(const MappedFile& file) {
    const std::string& path = file.path();
    const auto bytes = file.bytes();
    if (bytes.empty())
        return makeError(ErrorCode::Empty, "the report is empty", path);
    if (bytes.size > kMaxReportBytes)
        return makeError(ErrorCode::TooLarge, "a report over 1 GiB is not read", path);
    OnDemandJson json(std::string_view(reinterpret_cast<const char*>(bytes.data), bytes.size));
    SavedReport report;
    try {
        auto& document = json.document();
        if (document.type().value() != json_type::object)
            fault("", "not a Gapscope report: the document is not a JSON object");
        simdjson::ondemand::object doc = document.get_object().value();
        report.schema_version = schemaVersion(doc);
        doc.reset().value();
        // An --all-runs report: {"method", "runs": [report, …]}; else one report.
        value runs;
        const bool allRuns = !doc.find_field_unordered("runs").get(runs);
        doc.reset().value();
        if (allRuns) {
            report.all_runs = true;
            static constexpr std::string_view kKeys[] = {"runs", "schema_version", "method"};
            forEachKey(
                doc, kKeys, "",
                [&](unsigned k, std::string_view, value& f) {
                    if (k != 0)
                        return validateSkipped(f, 1);
                    if (f.type().value() != json_type::array)
                        fault("runs", "'runs' must be a list of reports");
                    for (auto item : f.get_array()) {
                        const std::string field = "runs[" + std::to_string(report.runs.size()) + "]";
                        value rv = item.value();
                        if (rv.type().value() != json_type::object)
                            fault(field, "a run must be a report object");
                        bool hasRows = false;
                        report.runs.push_back(readRun(rv.get_object().value(), field, hasRows));
                        if (!hasRows)
                            fault(field, "a run must have 'rows'");
                    }
                },
                1);
        } else {
            bool hasRows = false;
            report.runs.push_back(readRun(doc, "", hasRows));
            if (!hasRows)
                fault("", "not a Gapscope report: it has neither 'rows' nor 'runs'");
        }
        json.requireEnd();
    } catch (const simdjson::simdjson_error& e) {
        std::string message = "the report is " + onDemandMessage(e);
        if (auto at = json.offset(e.error()))
            return makeError(ErrorCode::Malformed, std::move(message), path, {},
                             static_cast<std::int64_t>(*at));
        return makeError(ErrorCode::Malformed, std::move(message), path);
    } catch (const JsonFault& f) {
        return makeError(f.code, f.message, path, f.field);
    }
    const std::string label = std::filesystem::path(path).filename().string();
    for (std::size_t k = 0; k < report.runs.size(); ++k)
        report.runs[k].label = report.all_runs ? label + " execution " + std::to_string(k) : label;
    return report;
}

Result<SavedReport> loadSavedReport(const std::string& path) {
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    // A report given to read is an input like the ETDump: `diff A.json B.json
    // --json A.json` must not replace A (issue 55, class 1).
    file.value()->protectFromOutputs();
    return readSavedReport(*file.value());
}

} // namespace gapscope
