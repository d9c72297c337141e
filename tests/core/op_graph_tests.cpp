// The graph view's model: every compared row is a node of the reference graph,
// producer edges follow the tensors, and a runtime event covering several nodes
// (XNNPACK's delegate calls in the demo) is one group.

#include "core/compare/findings.h"
#include "core/compare/op_graph.h"
#include "core/session/session.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <set>

using namespace gapscope;

TEST_CASE("the op graph ties every demo row to its reference nodes and groups delegate calls", "[op_graph]") {
    for (const char* capture : {"capture.gscap.safetensors", "capture_float.gscap.safetensors"}) {
        INFO(capture);
        const std::string dir = GAPSCOPE_DEMO_DIR;
        std::vector<Error> errors;
        const auto s = loadSession(sessionInputsFromPaths(
            {dir + "/run.etdp", dir + "/run.debug.bin", dir + "/etrecord.bin", dir + "/" + capture}, errors));
        REQUIRE(s->comparison);
        const ExportGraph* reference = referenceGraphFor(*s->etrecord, *s->capture);
        REQUIRE(reference);
        const OpGraph g = buildOpGraph(*s->comparison, *reference);
        CHECK(g.nodes.size() == reference->nodes.size());
        std::set<std::size_t> rows;
        for (const auto& n : g.nodes)
            if (n.row)
                rows.insert(*n.row);
        CHECK(rows.size() == s->comparison->rows.size()); // every row is drawn
        for (const auto& r : s->comparison->rows)
            CHECK(g.nodeOfRow(r.index));
        // Edges point from a producer to a consumer, both nodes of the graph, never a loop.
        REQUIRE(!g.edges.empty());
        for (const auto& [from, to] : g.edges) {
            CHECK(from < g.nodes.size());
            CHECK(to < g.nodes.size());
            CHECK(from != to);
        }
        // The delegate calls (row 0: conv2d, relu, …) are groups of their nodes.
        REQUIRE(!g.groups.empty());
        for (std::size_t k = 0; k < g.groups.size(); ++k) {
            CHECK(g.groups[k].nodes.size() >= 2);
            for (auto n : g.groups[k].nodes) {
                CHECK(g.nodes[n].group == static_cast<int>(k));
                CHECK(g.nodes[n].row == g.groups[k].row);
            }
        }
        CHECK(g.nodes.front().op.find('.') == std::string::npos); // "dequantize_per_tensor", no namespace
    }
}
