#include "core/runs/run_summary.h"

#include "core/capture/reference_kind.h"
#include "core/common/sha256.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/row_name.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace gapscope {

std::string referenceProgramDigest(const AotCapture& capture) {
    // One line per record: what no two graphs numbered differently share.
    std::string text = capture.reference_graph.value_or("") + "\n" + capture.method + "\n";
    for (const auto& r : capture.records) {
        for (const auto h : r.debug_handle)
            text += std::to_string(h) + ",";
        text += ":";
        for (const auto& op : r.ops)
            text += op + ",";
        text += "\n";
    }
    return sha256Hex(ByteSpan{reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

std::string summarizeStackTrace(const std::string& trace) {
    // torch.fx writes one `File "<path>", line <n>, in <function>` line per frame,
    // each followed by the source line.
    std::string out;
    std::istringstream lines(trace);
    std::string line;
    while (std::getline(lines, line)) {
        const auto file = line.find("File \"");
        if (file == std::string::npos)
            continue;
        const auto close = line.find('"', file + 6);
        const auto at = line.find(", line ", close == std::string::npos ? line.size() : close);
        if (close == std::string::npos || at == std::string::npos)
            continue;
        std::string path = line.substr(file + 6, close - file - 6);
        const auto slash = path.find_last_of("/\\");
        if (slash != std::string::npos)
            path.erase(0, slash + 1);
        std::size_t end = at + 7;
        while (end < line.size() && line[end] >= '0' && line[end] <= '9')
            ++end;
        if (!out.empty())
            out += " > ";
        out += path + ":" + line.substr(at + 7, end - at - 7);
    }
    return out;
}

std::string comparedNode(const ComparisonRow& row) {
    const auto* pair = row.id().pair;
    const CaptureRecord* record = pair ? pair->aot.record : nullptr;
    return record && !record->ops.empty() ? comparedOp(record->ops) : comparedOp(row.id().aot_ops);
}

std::int64_t comparedHandle(const ComparisonRow& row) {
    const auto* pair = row.id().pair;
    const CaptureRecord* record = pair ? pair->aot.record : nullptr;
    if (record && !record->debug_handle.empty())
        return record->debug_handle.back();
    return row.id().aot_debug_handle.empty() ? -1 : row.id().aot_debug_handle.back();
}

std::string rowSource(const ComparisonRow& row) {
    const auto* pair = row.id().pair;
    const CaptureRecord* record = pair ? pair->aot.record : nullptr;
    if (!record || record->stack_traces.empty())
        return {};
    // The record's compared node is its last op.
    const auto* trace = &record->stack_traces.back().second;
    if (!record->ops.empty())
        for (const auto& [name, text] : record->stack_traces)
            if (name == record->ops.back())
                trace = &text;
    return *trace ? summarizeStackTrace(**trace) : std::string();
}

RunReference runReference(const AotCapture* capture) {
    if (!capture)
        return {};
    return {referenceProgramDigest(*capture), referenceKindLabel(referenceKind(*capture))};
}

ReferenceProbe referenceProbe(const ComparisonRow& row) {
    // Read while the row was measured, before its pages were given back:
    // read here, 16 values a row faulted 16 pages back in (3% of `compare
    // --all-runs` on an LLM session).
    if (row.reference_probe)
        return *row.reference_probe;
    return probeReferences(row.elementPlans());
}

std::optional<double> probeAgreementDb(const ReferenceProbe& a, const ReferenceProbe& b) {
    if (a.elements == 0 || b.elements == 0)
        return std::nullopt;
    constexpr double kNever = -std::numeric_limits<double>::infinity();
    if (a.elements != b.elements || a.values.size() != b.values.size())
        return kNever;
    double signal = 0, noise = 0;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        const double x = a.values[i], y = b.values[i];
        if (!std::isfinite(x) || !std::isfinite(y)) {
            if (!(x == y || (std::isnan(x) && std::isnan(y))))
                return kNever;
            continue;
        }
        signal += x * x;
        noise += (x - y) * (x - y);
    }
    if (noise == 0)
        return std::numeric_limits<double>::infinity();
    return signal == 0 ? kNever : 10.0 * std::log10(signal / noise);
}

RunSummary summarizeRun(const Comparison& c, std::string label, RunReference reference,
                        const ComparisonLatency* latency) {
    RunSummary s;
    s.label = std::move(label);
    s.method = c.method;
    s.run = c.run;
    s.reference_program = std::move(reference.program);
    s.reference_kind = std::move(reference.kind);
    s.rows.reserve(c.rows.size());
    for (const auto& r : c.rows) {
        RunRow row;
        row.index = r.index;
        row.aot_debug_handle = r.id().aot_debug_handle;
        row.output_index = r.output_index;
        row.aot_ops = r.id().aot_ops;
        row.compared_node = comparedNode(r);
        row.compared_handle = comparedHandle(r);
        row.name = displayOpName(r);
        for (const auto& shape : r.id().shapes())
            row.shapes += (row.shapes.empty() ? "" : "; ") + shape;
        row.source = rowSource(r);
        row.status = r.status;
        row.reason = r.reason;
        for (const auto& m : metricCatalog())
            row.metrics.push_back(r.gaps.empty() ? std::nullopt : rowMetric(r, m.id));
        // Times in ms, as a report keeps them: a session's table is in ms unless asked otherwise.
        if (latency && r.index < latency->rows.size() && latency->scale == TimeScale::Ms) {
            row.time_ms = latency->rows[r.index].p50;
            row.time_share = latency->rows[r.index].share;
        }
        row.reference_probe = referenceProbe(r);
        row.tap = r.tap != nullptr;
        row.bounds = r.bounds;
        s.rows.push_back(std::move(row));
    }
    return s;
}

} // namespace gapscope
