#include "core/report/model_explorer_export.h"

#include "core/compare/metric_catalog.h"
#include "core/report/etdump_json.h"
#include "core/report/json_text.h"
#include "core/runs/run_summary.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace gapscope {

using json = nlohmann::ordered_json;

namespace {

struct Overlay {
    const char* file;
    const char* name;
    bool higher_is_worse;
    // The row's value, when it has one.
    std::optional<double> (*value)(const ComparisonRow&, const RowLatency*);
    // Of the rows whose metrics are bounds (a STATS tap's, issue 58) only, or of
    // the others only: a bound is never shown as a measurement.
    bool bounds = false;
};

const Overlay kOverlays[] = {
    {"gapscope-snr.json", "Gapscope SNR (dB)", false,
     [](const ComparisonRow& r, const RowLatency*) { return rowMetric(r, Metric::Snr); }},
    {"gapscope-rel-l2.json", "Gapscope rel. L2", true,
     [](const ComparisonRow& r, const RowLatency*) { return rowMetric(r, Metric::RelL2); }},
    {"gapscope-time-ms.json", "Gapscope time (ms, median)", true,
     [](const ComparisonRow&, const RowLatency* t) { return t ? t->p50 : std::nullopt; }},
    {"gapscope-time-share.json", "Gapscope time share (%)", true,
     [](const ComparisonRow&, const RowLatency* t) {
         return t && t->share ? std::optional<double>(100 * *t->share) : std::nullopt;
     }},
    {"gapscope-snr-bound.json", "Gapscope SNR at most (dB, STATS taps)", false,
     [](const ComparisonRow& r, const RowLatency*) { return rowMetric(r, Metric::Snr); }, true},
};

// Green for good, red for bad, whichever end of the range each is.
json gradient(bool higherIsWorse) {
    const char* low = higherIsWorse ? "#2e7d32" : "#c62828";
    const char* high = higherIsWorse ? "#c62828" : "#2e7d32";
    return json::array({{{"stop", 0}, {"bgColor", low}}, {{"stop", 1}, {"bgColor", high}}});
}

} // namespace

NodeDataExport modelExplorerNodeData(const Comparison& c, const ComparisonLatency* latency,
                                     const EtRecord& etrecord) {
    NodeDataExport out;
    out.graph_id = c.method.empty() ? "forward" : c.method;
    const ExportGraph* edge = etrecord.edgeProgram(out.graph_id);
    if (!edge) {
        out.notes.push_back("the ETRecord holds no edge program of '" + out.graph_id +
                            "': Model Explorer's ETRecord adapter would show no graph to put values on");
        return out;
    }
    // Every node carrying a handle gets its row's value: the nodes one op was
    // decomposed into share the handle, and Model Explorer shows each.
    std::multimap<std::int64_t, const std::string*> nodesOfHandle;
    for (const auto& n : edge->nodes)
        for (const auto h : n.debug_handles)
            nodesOfHandle.emplace(h, &n.name);

    std::size_t unplaced = 0, notFinite = 0;
    for (const auto& overlay : kOverlays) {
        std::map<std::string, double> values; // by node, in name order: a stable file
        for (const auto& r : c.rows) {
            const RowLatency* t =
                latency && r.index < latency->rows.size() ? &latency->rows[r.index] : nullptr;
            if (r.bounds != overlay.bounds)
                continue;
            const auto v = overlay.value(r, t);
            if (!v)
                continue;
            const auto [first, last] = nodesOfHandle.equal_range(comparedHandle(r));
            if (first == last) {
                unplaced += &overlay == &kOverlays[0];
                continue;
            }
            if (!std::isfinite(*v)) {
                notFinite += &overlay == &kOverlays[0];
                continue;
            }
            for (auto node = first; node != last; ++node) {
                auto [it, added] = values.emplace(*node->second, *v);
                if (!added && (overlay.higher_is_worse ? *v > it->second : *v < it->second))
                    it->second = *v;
            }
        }
        if (values.empty())
            continue;
        json results = json::object();
        // ExecuTorch's FXOperatorGraph names an op node by its FX name and "_" (et_schema.py,
        // "prevents TensorBoard from collapsing"), and the ETRecord adapter keeps that id.
        for (const auto& [node, v] : values)
            results[node + "_"] = {{"value", jsonNumber(v)}};
        // Every field of GraphNodeData, in its order, as Model Explorer's classes write it.
        json graph = {{"results", std::move(results)},
                      {"name", overlay.name},
                      {"thresholds", json::array()},
                      {"gradient", gradient(overlay.higher_is_worse)},
                      {"hideInAggregatedStatsTable", false},
                      {"hideInChildrenStatsTable", false},
                      {"showExpandedSummaryOnGroupNode", false},
                      {"showLabelCountColumnsInChildrenStatsTable", false}};
        json doc = json::object();
        doc[out.graph_id] = std::move(graph);
        out.files.push_back({overlay.file, overlay.name, renderJson(doc).text + "\n", values.size()});
    }
    if (unplaced)
        out.notes.push_back(std::to_string(unplaced) + " rows compare a node the edge program does not carry "
                                                       "(another graph's handles): not placed");
    if (notFinite)
        out.notes.push_back(std::to_string(notFinite) +
                            " rows have an SNR that is not finite (an exact op: ∞), which JSON cannot hold: "
                            "left out of the SNR overlay");
    return out;
}

} // namespace gapscope
