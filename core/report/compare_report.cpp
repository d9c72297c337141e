#include "core/report/compare_report.h"

#include "core/compare/findings.h"
#include "core/compare/row_name.h"
#include "core/report/etdump_json.h"
#include "core/report/safe_text.h"
#include "core/report/text_format.h"
#include "core/runs/run_summary.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace gapscope {

using json = nlohmann::ordered_json;

namespace {

json metricsJson(const GapMetrics& m) {
    json j;
    for (const auto& info : metricCatalog()) {
        const auto v = metricValue(m, info.id);
        j[info.name] = v ? jsonNumber(*v) : json(nullptr);
    }
    j["max_abs_index"] = m.max_abs_index;
    j["nan_aot"] = m.nan_aot;
    j["inf_aot"] = m.inf_aot;
    j["nan_runtime"] = m.nan_runtime;
    j["inf_runtime"] = m.inf_runtime;
    j["elements"] = m.elements;
    j["broadcast"] = m.broadcast;
    return j;
}

// Handles and coordinates, written by us from integers: quoted when they hold a
// separator, never neutralised (a lone "-1" is a number, not a formula).
std::string csvNumbers(const std::string& s) {
    return s.find(',') == std::string::npos ? s : "\"" + s + "\"";
}

json rowLatencyJson(const RowLatency& r) {
    json j;
    j["p50"] = r.p50 ? jsonNumber(*r.p50) : json(nullptr);
    j["share"] = r.share ? jsonNumber(*r.share) : json(nullptr);
    j["source"] = latencySourceName(r.source);
    j["event"] = r.event.empty() ? json(nullptr) : json(r.event);
    if (r.cycles) {
        j["cycles"] = jsonNumber(*r.cycles);
        j["call_cycles"] = jsonNumber(*r.call_cycles);
    }
    j["shared_by"] = r.shared_by;
    json instructions = json::array();
    for (const auto i : r.instructions)
        instructions.push_back(i);
    j["instructions"] = instructions;
    j["reason"] = r.reason.empty() ? json(nullptr) : json(r.reason);
    return j;
}

json latencyJson(const ComparisonLatency& l) {
    json timed = json::array();
    for (const auto& u : l.timed_without_numerics)
        timed.push_back({{"event", u.name},
                         {"instruction_id", u.instruction_id},
                         {"p50", jsonNumber(u.p50)},
                         {"reason", u.reason}});
    return {{"unit", timeScaleName(l.scale)},
            {"runs", l.runs},
            {"execute_p50", l.execute_p50 ? jsonNumber(*l.execute_p50) : json(nullptr)},
            {"rows_without_time", l.rowsWithoutTime()},
            {"timed_without_numerics", timed},
            {"notes", l.notes}};
}

// A tap row's tap: its spec, the row it is nested in, whether the metrics are
// bounds, a reduced tap's fields side by side, and a whole tensor's SQNR as
// ExecuTorch's tap_compare gives it.
json tapJson(const ComparisonRow& r) {
    const CaptureTap& spec = r.tap->spec;
    const auto optional = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
    json t = {{"output_index", spec.output_index},
              {"node_name", spec.node_name},
              {"op_target", spec.op_target},
              {"reducer", spec.reducer},
              {"module_path", optional(spec.module_path)},
              {"module_class", optional(spec.module_class)},
              {"stack_trace", optional(spec.stack_trace)},
              {"nested_in", r.inside ? json(*r.inside) : json(nullptr)},
              {"bounds", r.bounds}};
    if (r.tap->fields) {
        json fields = json::array();
        const TapFields& f = *r.tap->fields;
        for (std::size_t k = 0; k < f.names.size(); ++k)
            fields.push_back({{"name", f.names[k]},
                              {"reference", jsonNumber(f.reference[k])},
                              {"runtime", jsonNumber(f.runtime[k])}});
        t["fields"] = fields;
    } else {
        t["fields"] = nullptr;
    }
    t["executorch_sqnr_db"] =
        spec.fullTensor() && r.gaps.size() == 1 ? jsonNumber(r.gaps.front().runtime_sqnr) : json(nullptr);
    return t;
}

const RowLatency* rowLatency(const ComparisonLatency* l, std::size_t row) {
    return l && row < l->rows.size() ? &l->rows[row] : nullptr;
}

} // namespace

json comparisonToJson(const Comparison& c, const ReportContext& ctx) {
    json doc;
    doc["schema_version"] = kReportSchemaVersion;
    doc["reference_program"] = ctx.reference_program.empty() ? json(nullptr) : json(ctx.reference_program);
    doc["reference_kind"] = ctx.reference_kind.empty() ? json(nullptr) : json(ctx.reference_kind);
    json rows = json::array();
    for (const auto& r : c.rows) {
        json j;
        j["index"] = r.index;
        j["aot_debug_handle"] = r.id().aot_debug_handle;
        j["aot_ops"] = r.id().aot_ops;
        j["runtime_ops"] = r.id().runtime_ops;
        j["runtime_debug_handle"] = r.id().runtimeDebugHandle();
        j["status"] = rowStatusName(r.status);
        j["reason"] = r.reason.empty() ? json(nullptr) : json(r.reason);
        j["in_executorch"] = r.in_executorch;
        j["instruction_id"] = r.instruction_id;
        j["output_index"] = r.output_index;
        j["shapes"] = r.id().shapes();
        j["dtypes"] = r.id().dtypes();
        j["dequantized"] = r.dequantized;
        j["selection"] = r.selection.empty() ? json(nullptr) : json(r.selection);
        j["compared_node"] = comparedNode(r);
        j["compared_handle"] = comparedHandle(r);
        const std::string source = rowSource(r);
        j["source"] = source.empty() ? json(nullptr) : json(source);
        // A few reference values: whether another run's row compares the same tensor (run_summary.h).
        if (const ReferenceProbe probe = referenceProbe(r); probe.elements > 0) {
            json values = json::array();
            for (const double v : probe.values)
                values.push_back(jsonNumber(v));
            j["reference_probe"] = {{"elements", probe.elements}, {"values", std::move(values)}};
        } else {
            j["reference_probe"] = nullptr;
        }
        json metrics = json::object();
        if (!r.gaps.empty())
            for (const auto& info : metricCatalog()) {
                const auto v = rowMetric(r, info.id);
                metrics[info.name] = v ? jsonNumber(*v) : json(nullptr);
            }
        j["metrics"] = metrics;
        json elements = json::array();
        for (const auto& g : r.gaps)
            elements.push_back(metricsJson(g));
        j["elements"] = elements;
        // ExecuTorch's `gap` column per metric, for parity checks.
        if (r.executorch) {
            json mse = json::array(), l1 = json::array(), snr = json::array();
            for (const auto& g : *r.executorch) {
                mse.push_back(jsonNumber(g.mse));
                l1.push_back(jsonNumber(g.l1));
                snr.push_back(jsonNumber(g.snr));
            }
            j["executorch"] = {{"mse", mse}, {"l1", l1}, {"snr", snr}};
        } else {
            j["executorch"] = nullptr;
        }
        const auto* latency = rowLatency(ctx.latency.get(), r.index);
        j["latency"] = latency ? rowLatencyJson(*latency) : json(nullptr);
        // Only a tap's row has these (issue 58): every other row reads as before.
        if (r.tap)
            j["tap"] = tapJson(r);
        rows.push_back(j);
    }
    doc["rows"] = rows;
    json outputs = json::array();
    for (const auto& o : c.outputs)
        outputs.push_back({{"index", o.index},
                           {"status", rowStatusName(o.status)},
                           {"reason", o.reason.empty() ? json(nullptr) : json(o.reason)},
                           {"shape", o.shape},
                           {"dtype", o.dtype},
                           {"metrics", o.metrics ? metricsJson(*o.metrics) : json(nullptr)}});
    doc["program_outputs"] = outputs;

    json coverage = json::object();
    json items = json::array();
    json counts = json::object();
    for (const auto& item : c.coverage) {
        const std::string kind(coverageKindName(item.kind));
        items.push_back(
            {{"kind", kind}, {"what", item.what}, {"debug_handle", item.handles}, {"reason", item.reason}});
        counts[kind] = counts.value(kind, 0) + 1;
    }
    coverage["counts"] = counts;
    coverage["items"] = items;
    doc["coverage"] = coverage;
    doc["warnings"] = c.warnings;
    doc["notes"] = c.notes;
    doc["latency"] = ctx.latency ? latencyJson(*ctx.latency) : json(nullptr);

    if (ctx.first_divergence) {
        const auto& fd = *ctx.first_divergence;
        doc["first_divergence"] = {{"row", fd.row},
                                   {"aot_ops", c.rows[fd.row].id().aot_ops},
                                   {"metric", metricName(fd.threshold.metric)},
                                   {"threshold", fd.threshold.value},
                                   {"value", jsonNumber(fd.value)}};
    } else {
        doc["first_divergence"] = nullptr;
    }
    json introducers = json::array();
    for (const auto& in : ctx.introducers)
        introducers.push_back({{"row", in.row},
                               {"aot_ops", c.rows[in.row].id().aot_ops},
                               {"rel_l2", jsonNumber(in.own)},
                               {"worst_producer_rel_l2", jsonNumber(in.worst_producer)},
                               {"added_rel_l2", jsonNumber(in.added)},
                               {"gain_db", jsonNumber(in.gain_db)},
                               {"producer_rows", in.producers},
                               {"producers_from", in.producers_from_graph ? "graph" : "execution_order"}});
    doc["introducers"] = introducers;

    json inputs = json::array();
    for (const auto& i : ctx.inputs)
        inputs.push_back(
            {{"role", inputRoleKey(i.role)}, {"path", i.path}, {"bytes", i.bytes}, {"sha256", i.sha256}});
    json gates = json::array();
    for (const auto& g : ctx.gates)
        gates.push_back({{"metric", metricName(g.metric)}, {"value", g.value}});
    doc["provenance"] = {
        {"gapscope_version", gapscopeVersion()},
        {"inputs", inputs},
        {"settings",
         {{"method", c.method},
          {"run", c.run},
          {"threshold", {{"metric", metricName(ctx.threshold.metric)}, {"value", ctx.threshold.value}}},
          {"fail_above", gates}}}};
    return doc;
}

void writeComparisonCsv(std::ostream& out, const Comparison& c, const ComparisonLatency* latency) {
    out << "index,aot_debug_handle,aot_ops,runtime_ops,runtime_debug_handle,status,reason,in_executorch,"
           "shape,dtype";
    for (const auto& m : metricCatalog())
        out << ',' << m.name;
    out << ",max_abs_index,latency_p50_" << timeScaleName(latency ? latency->scale : TimeScale::Ms)
        << ",time_share,bounds\r\n";
    for (const auto& r : c.rows) {
        out << r.index << ',' << csvNumbers(joinHandles(r.id().aot_debug_handle)) << ','
            << csvCell(join(r.id().aot_ops, "; ")) << ',' << csvCell(join(r.id().runtime_ops, "; ")) << ','
            << csvNumbers(joinHandles(r.id().runtimeDebugHandle())) << ',' << rowStatusName(r.status) << ','
            << csvCell(r.reason) << ',' << (r.in_executorch ? "true" : "false") << ','
            << csvCell(join(r.id().shapes(), "; ")) << ',' << csvCell(join(r.id().dtypes(), "; "));
        for (const auto& m : metricCatalog()) {
            const auto v = rowMetric(r, m.id);
            out << ',' << (v ? number(*v) : std::string());
        }
        out << ',' << csvNumbers(r.gaps.empty() ? std::string() : joinHandles(r.gaps.front().max_abs_index));
        const auto* t = rowLatency(latency, r.index);
        out << ',' << (t && t->p50 ? number(*t->p50) : std::string()) << ','
            << (t && t->share ? number(*t->share) : std::string()) << ',' << (r.bounds ? "true" : "")
            << "\r\n"; // a STATS tap's metrics: bounds (docs/metrics.md)
    }
}

void writeComparisonMarkdown(std::ostream& out, const Comparison& c, const ReportContext& ctx) {
    out << "# Gapscope comparison\n\n";
    const ComparisonLatency* latency = ctx.latency.get();
    out << "| # | aot ops | runtime ops | handles | status |";
    for (const auto m : summaryMetrics())
        out << ' ' << metricInfo(m).summary_label << " |";
    if (latency)
        out << " time (" << timeScaleName(latency->scale) << ") | time % |";
    out << "\n|---|---|---|---|---|";
    for (std::size_t i = 0; i < summaryMetrics().size() + (latency ? 2 : 0); ++i)
        out << "---|";
    out << '\n';
    for (const auto& r : c.rows) {
        const bool first = ctx.first_divergence && ctx.first_divergence->row == r.index;
        out << "| " << r.index << (first ? " ⚑" : "") << " | " << markdownText(join(r.id().aot_ops, ", "))
            << " | " << markdownText(join(r.id().runtime_ops, ", ")) << " | "
            << joinHandles(r.id().aot_debug_handle, ",") << " | " << rowStatusName(r.status) << " |";
        for (const auto m : summaryMetrics()) {
            const auto v = rowMetric(r, m);
            const std::string side = r.bounds && v && std::isfinite(*v) ? boundSign(m) : "";
            out << ' ' << (v ? side + shortNumber(*v) : std::string("—")) << " |";
        }
        if (latency) {
            const auto* t = rowLatency(latency, r.index);
            out << ' ' << (t && t->p50 ? shortNumber(*t->p50) : std::string("—")) << " | "
                << (t && t->share ? shortNumber(100 * *t->share) : std::string("—")) << " |";
        }
        out << '\n';
    }
    if (ctx.first_divergence)
        out << "\n⚑ first divergence: " << markdownText(metricName(ctx.first_divergence->threshold.metric))
            << " " << shortNumber(ctx.first_divergence->value) << " (threshold "
            << ctx.first_divergence->threshold.value << ")\n";
    if (!c.warnings.empty()) {
        out << "\n## Warnings\n\n";
        for (const auto& w : c.warnings)
            out << "- " << markdownText(w) << "\n";
    }
    if (!c.notes.empty()) {
        out << "\n## Notes\n\n";
        for (const auto& n : c.notes)
            out << "- " << markdownText(n) << "\n";
    }
    if (!c.coverage.empty()) {
        out << "\n## Coverage\n\n| kind | what | handles | reason |\n|---|---|---|---|\n";
        for (const auto& i : c.coverage)
            out << "| " << markdownText(std::string(coverageKindName(i.kind))) << " | "
                << markdownText(i.what) << " | " << joinHandles(i.handles, ",") << " | "
                << markdownText(i.reason) << " |\n";
    }
}

// One line: where the run's time goes, beside where its error does.
static void writeLatencySummary(std::ostream& out, const Comparison& c, const ComparisonLatency& l) {
    const char* unit = timeScaleName(l.scale);
    std::optional<std::size_t> slowest;
    for (std::size_t i = 0; i < l.rows.size() && i < c.rows.size(); ++i)
        if (l.rows[i].p50 && (!slowest || *l.rows[i].p50 > *l.rows[*slowest].p50))
            slowest = i;
    out << "time: " << l.runs << (l.runs == 1 ? " run" : " runs");
    if (l.execute_p50)
        out << ", Method::execute " << shortNumber(*l.execute_p50) << ' ' << unit << " (median)";
    if (slowest) {
        const auto& t = l.rows[*slowest];
        out << "; slowest row " << *slowest << " (" << echoedName(summarisedOpNames(c.rows[*slowest])) << ") "
            << shortNumber(*t.p50) << ' ' << unit;
        if (t.share)
            out << ", " << shortNumber(100 * *t.share) << "% of the run";
        if (t.shared_by > 1)
            out << " (one delegate call's, shared by " << t.shared_by << " rows)";
    }
    const auto without = l.rowsWithoutTime(), timed = l.timed_without_numerics.size();
    out << "; " << without << (without == 1 ? " row" : " rows") << " without a time, " << timed
        << (timed == 1 ? " timed event" : " timed events") << " without numbers\n";
}

// A reason names ops and files; it is cut where a name alone would flood the terminal.
constexpr std::size_t kMaxEchoedReason = 1000;

void writeComparisonTable(std::ostream& out, const Comparison& c, const ReportContext& ctx) {
    // Names from the inputs: control characters escaped (no escape sequence
    // reaches the terminal), cut to the column at a character boundary.
    auto clip = [](const std::string& name, std::size_t n) {
        std::string s = terminalText(name, false);
        if (s.size() > n)
            s = s.substr(0, characterBoundary(s, n - 1)) + "~";
        return s;
    };
    out << std::left << std::setw(4) << "#" << std::setw(34) << "aot_ops" << std::setw(22) << "runtime_ops"
        << std::setw(18) << "handles" << std::setw(13) << "status";
    // The summary's metrics, each 11 wide but the last.
    const auto& summary = summaryMetrics();
    const auto cells = [&](auto cell) {
        for (std::size_t i = 0; i < summary.size(); ++i)
            out << std::setw(i + 1 < summary.size() ? 11 : 0) << cell(metricInfo(summary[i]));
    };
    cells([](const MetricInfo& m) { return std::string(m.name); });
    out << '\n';
    for (const auto& r : c.rows) {
        const bool first = ctx.first_divergence && ctx.first_divergence->row == r.index;
        out << std::setw(4) << (std::to_string(r.index) + (first ? "!" : "")) << std::setw(34)
            << clip(join(r.id().aot_ops, ","), 33) << std::setw(22) << clip(join(r.id().runtime_ops, ","), 21)
            << std::setw(18) << clip(joinHandles(r.id().aot_debug_handle, ","), 17) << std::setw(13)
            << (std::string(rowStatusName(r.status)) + (r.in_executorch ? "" : "*"));
        cells([&](const MetricInfo& m) {
            const auto v = rowMetric(r, m.id);
            // A STATS tap's bound says its side, in ASCII: the columns are counted in bytes.
            const std::string side =
                r.bounds && v && std::isfinite(*v) ? (m.higher_is_worse ? ">=" : "<=") : "";
            return v ? side + (m.format == MetricFormat::Precise ? cosineNumber(*v) : shortNumber(*v))
                     : std::string("-");
        });
        out << '\n';
        if (!r.reason.empty())
            out << "    " << echoedName(r.reason, kMaxEchoedReason) << '\n';
    }
    for (const auto& o : c.outputs) {
        out << "program output " << o.index << ": " << rowStatusName(o.status);
        if (o.metrics) {
            out << "  mse " << shortNumber(o.metrics->mse) << "  snr " << shortNumber(o.metrics->snr)
                << "  max_abs " << shortNumber(o.metrics->max_abs) << "  cosine "
                << cosineNumber(o.metrics->cosine);
            // The model's own result is past the threshold: say so, whatever the rows say.
            if (crossesThreshold(o, ctx.threshold))
                out << "  ! crosses " << metricName(ctx.threshold.metric) << " " << ctx.threshold.value;
        }
        if (!o.reason.empty())
            out << "  (" << echoedName(o.reason, kMaxEchoedReason) << ")";
        out << '\n';
    }
    if (std::any_of(c.rows.begin(), c.rows.end(), [](const ComparisonRow& r) { return !r.in_executorch; }))
        out << "\n* not a row of ExecuTorch's calculate_numeric_gap\n";
    else
        out << '\n';
    if (ctx.first_divergence)
        out << "! first divergence: row " << ctx.first_divergence->row << " ("
            << echoedName(summarisedOpNames(c.rows[ctx.first_divergence->row])) << "), "
            << metricName(ctx.first_divergence->threshold.metric) << " = "
            << shortNumber(ctx.first_divergence->value) << ", threshold "
            << ctx.first_divergence->threshold.value << '\n';
    else
        out << "no row crosses " << metricName(ctx.threshold.metric) << " " << ctx.threshold.value << '\n';
    if (ctx.latency)
        writeLatencySummary(out, c, *ctx.latency);
    std::map<std::string, int> counts;
    for (const auto& i : c.coverage)
        ++counts[std::string(coverageKindName(i.kind))];
    if (!counts.empty()) {
        out << "coverage:";
        for (const auto& [k, n] : counts)
            out << ' ' << k << '=' << n;
        out << '\n';
    }
}

} // namespace gapscope
