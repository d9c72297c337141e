// Model Explorer node-data overlays (issue 26, docs/profiling.md): keyed by the
// ETRecord adapter's node ids (the edge program's FX names and "_"), each value
// its row's. tests/e2e/check_model_explorer.py reads them with Model Explorer's
// own classes against the adapter's graph.
#include "core/compare/metric_catalog.h"
#include "core/report/model_explorer_export.h"
#include "core/runs/run_summary.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace gapscope;

TEST_CASE("Model Explorer overlays land on the edge program's nodes with their rows' values",
          "[model-explorer][data]") {
    const auto d = test::compareSessionDir(GAPSCOPE_TEST_DATA_DIR "/portable_mha");
    ProfileOptions options;
    options.etrecord = &d->session.etrecord;
    const auto latency = comparisonLatency(profileTable(d->session.dump, options), d->comparison);
    REQUIRE(latency);
    const auto out = modelExplorerNodeData(d->comparison, &*latency, d->session.etrecord);
    CHECK(out.graph_id == "forward");
    REQUIRE(out.files.size() == 4);
    const ExportGraph* edge = d->session.etrecord.edgeProgram("forward");
    REQUIRE(edge);
    const auto& snr = out.files.front();
    CHECK(snr.file == "gapscope-snr.json");
    const auto doc = nlohmann::json::parse(snr.json);
    const auto& results = doc.at("forward").at("results");
    CHECK(results.size() == snr.nodes);
    std::size_t checked = 0;
    for (const auto& r : d->comparison.rows) {
        const auto v = rowMetric(r, Metric::Snr);
        if (!v || !std::isfinite(*v))
            continue;
        const auto h = comparedHandle(r);
        for (const auto& n : edge->nodes)
            if (!n.debug_handles.empty() && n.debug_handles.front() == h) {
                REQUIRE(results.contains(n.name + "_"));
                CHECK(results.at(n.name + "_").at("value").get<double>() <= *v); // the worst of its rows
                ++checked;
            }
    }
    CHECK(checked > 0);
    // Every field Model Explorer's GraphNodeData writes, so its classes write the same document.
    for (const char* key : {"results", "name", "thresholds", "gradient", "hideInAggregatedStatsTable",
                            "hideInChildrenStatsTable", "showExpandedSummaryOnGroupNode",
                            "showLabelCountColumnsInChildrenStatsTable"})
        CHECK(doc.at("forward").contains(key));
}
