// Issue 23: a delegate's outputs in the order it returns them. A RoPE decoder on
// XNNPACK computes cos·scale, sin·scale and RMSNorm's pow in one delegate; its
// partitioner cut the group when the graph was sorted pow first, so the call
// returns (pow, cos·scale, sin·scale) while the saved program lists cos, sin,
// pow. The call's debug_handle_map entry keeps the cut-time order.

#include "core/align/delegate_outputs.h"
#include "core/etrecord/export_graph.h"
#include "session_builder.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <tuple>

using namespace gapscope;
using namespace gapscope::test;

namespace {

GraphNode op(const std::string& name, std::int64_t handle, std::vector<std::string> inputs) {
    GraphNode n;
    n.name = name;
    n.target = "executorch.exir.dialects.edge.ops.aten." + name + ".default";
    n.debug_handles = {handle};
    n.input_tensors = std::move(inputs);
    n.output_tensors = {name};
    return n;
}

// The saved (pre-delegation) graph: cos, mul_1 (cos·scale), sin, mul_2 (sin·scale),
// pow; each result read by an op outside the delegate.
ExportGraph ropeGraph() {
    ExportGraph g;
    g.nodes = {op("cos", 40, {"freqs"}),
               op("mul_1", 41, {"cos"}),
               op("sin", 42, {"freqs"}),
               op("mul_2", 43, {"sin"}),
               op("pow", 44, {"embed"}),
               op("rsqrt", 50, {"pow"}),
               op("q_rope", 51, {"mul_1", "mul_2"})};
    return g;
}

} // namespace

TEST_CASE("a delegate's return order comes from its debug_handle_map entry, not graph order",
          "[align][delegate-order]") {
    const auto order = delegateOutputOrder(ropeGraph(), {44, 40, 42, 41, 43}, 3);
    INFO(order.problem);
    CHECK(order.known());
    CHECK(order.handles == std::vector<std::int64_t>{44, 41, 43}); // pow, cos·scale, sin·scale
    // The entry in graph order gives graph order: the rule follows the entry.
    CHECK(delegateOutputOrder(ropeGraph(), {40, 41, 42, 43, 44}, 3).handles ==
          std::vector<std::int64_t>{41, 43, 44});
}

TEST_CASE("a node of several results takes a place for itself and one per getitem",
          "[align][delegate-order]") {
    // torchao's 8da4w linear (issue 54): choose_qparams_affine returns (scale,
    // zero point), read through two getitems that carry its handle in the lowered
    // module but are folded into its outputs in the saved program; the list has
    // 3 places for handle 56. The delegate returns the linear's view and, first,
    // the RMSNorm product that another delegate reads too.
    ExportGraph g;
    g.nodes = {op("mul_4", 48, {"x"}),
               op("choose_qparams", 56, {"mul_4"}),
               op("quantize", 57, {"mul_4", "scale", "zero"}),
               op("dequantize", 58, {"quantize", "scale", "zero"}),
               op("linear", 60, {"dequantize", "w"}),
               op("view", 61, {"linear"}),
               op("rope", 79, {"view", "mul_4"})};
    g.nodes[1].output_tensors = {"scale", "zero"};
    const auto order = delegateOutputOrder(g, {48, 56, 56, 56, 57, 58, 60, 61}, 2);
    INFO(order.problem);
    REQUIRE(order.known());
    CHECK(order.handles == std::vector<std::int64_t>{48, 61});
    // One place short for the getitems: said, not guessed.
    const auto shortOne = delegateOutputOrder(g, {48, 56, 56, 57, 58, 60, 61}, 2);
    CHECK_THAT(shortOne.problem, Catch::Contains("handle 56 is shared with ops outside the delegate: 3 "
                                                 "places of candidates for 2"));
    // The getitems read outside are outputs at their own places.
    g.nodes[6].input_tensors = {"view", "mul_4", "zero"};
    const auto getitem = delegateOutputOrder(g, {48, 56, 56, 56, 57, 58, 60, 61}, 3);
    INFO(getitem.problem);
    REQUIRE(getitem.known());
    CHECK(getitem.handles == std::vector<std::int64_t>{48, 56, 61});
}

TEST_CASE("a delegate's return order that cannot be established says why", "[align][delegate-order]") {
    SECTION("a handle with more places than nodes") {
        const auto order = delegateOutputOrder(ropeGraph(), {44, 40, 40, 42, 41, 43}, 3);
        CHECK_FALSE(order.known());
        CHECK_THAT(order.problem, Catch::Contains("handle 40 has 2 places but 1 for its nodes"));
    }
    SECTION("another number of results read outside than the call returns") {
        const auto order = delegateOutputOrder(ropeGraph(), {44, 40, 42, 41, 43}, 2);
        CHECK_FALSE(order.known());
        CHECK_THAT(order.problem,
                   Catch::Contains("3 of the delegate's nodes are read outside it, for 2 outputs"));
    }
    SECTION("a handle shared with ops outside, more candidates than places") {
        ExportGraph g = ropeGraph();
        g.nodes.push_back(op("cos_again", 40, {"mul_1"})); // fed by a member
        g.nodes.push_back(op("cos_too", 40, {"pow"}));     // fed by a member too
        const auto order = delegateOutputOrder(g, {44, 40, 42, 41, 43}, 3);
        CHECK_FALSE(order.known());
        CHECK_THAT(order.problem, Catch::Contains("shared with ops outside the delegate"));
    }
}

TEST_CASE("a lowered program's call node gives the exact return order", "[align][delegate-order]") {
    ExportGraph g;
    GraphNode call;
    call.name = "executorch_call_delegate";
    call.target = "torch.ops.higher_order.executorch_call_delegate";
    call.output_tensors = {"getitem", "getitem_1", "getitem_2"};
    call.lowered = LoweredModule{{40, 41, 42, 43, 44}, {{44}, {41}, {43}}};
    g.nodes = {call};
    const auto order = delegateOutputOrder(g, {43, 41, 40, 42, 44}, 3);
    CHECK(order.known());
    CHECK(order.handles == std::vector<std::int64_t>{44, 41, 43});
    // A module of another handle set is another delegate's: the order is then derived (and unknown here).
    CHECK_FALSE(delegateOutputOrder(g, {1, 2}, 2).known());
}

// The same through alignment: the delegate logs its input, then (pow, cos·scale,
// sin·scale). ExecuTorch's positional rule pairs output i from the end with the
// entry's i-th handle from the end (43, 41, 42): sin·scale's tensor against
// sin's reference, cos·scale's against sin·scale's. Paired in return order,
// every row agrees.
TEST_CASE("RoPE's delegate outputs are compared with the ops that produce them", "[align][delegate-order]") {
    SessionBuilder b;
    b.maps.debug_handle_map[0] = {{44, 40, 42, 41, 43}, true};
    b.maps.delegate_map[0] = DelegateMapping{"XnnpackBackend", {}};
    b.maps.num_outs[0] = 3;
    for (const auto& n : ropeGraph().nodes)
        b.node(n.name, n.debug_handles, n.input_tensors);
    const std::vector<float> cosScaled{0.5f, 0.25f, 0.125f, 1.0f}, sinScaled{-0.5f, 0.75f, 0.0f, 0.3f},
        sinRaw{-1.0f, 1.5f, 0.0f, 0.6f}, pow{4.0f, 9.0f, 1.0f, 0.25f};
    b.delegateCall(0, {b.tensor({1, 2, 3, 4}, {1, 4}), b.tensor(pow, {1, 4}), b.tensor(cosScaled, {1, 4}),
                       b.tensor(sinScaled, {1, 4})});
    b.record({40}, {"cos"}, {{{1.0f, 0.5f, 0.25f, 2.0f}, {1, 4}}});
    b.record({41}, {"mul_1"}, {{cosScaled, {1, 4}}});
    b.record({42}, {"sin"}, {{sinRaw, {1, 4}}});
    b.record({43}, {"mul_2"}, {{sinScaled, {1, 4}}});
    b.record({44}, {"pow"}, {{pow, {1, 4}}});
    const auto& c = b.compare();
    REQUIRE(c.rows.size() == 3);
    for (const auto& row : c.rows) {
        INFO("output " << row.output_index << ": " << row.selection << " " << row.reason);
        CHECK(row.status == RowStatus::Ok);
        REQUIRE(row.gaps.size() == 1);
        CHECK(row.gaps.front().mse == 0.0);
    }
    bool pairedPow = false;
    for (const auto& row : c.rows)
        if (row.selection.find("is 'pow' (the delegate's return order") != std::string::npos)
            pairedPow = true;
    CHECK(pairedPow);
}

// The same from the JSON an ETRecord of the lowered program holds: the call node's
// first argument is the lowered module as a string, whose `original_module` returns
// (pow, cos·scale, sin·scale).
TEST_CASE("a lowered program's call node is read from its serialized lowered module",
          "[align][delegate-order]") {
    std::string nodes;
    for (const auto& [name, handle, input] :
         {std::tuple<const char*, const char*, const char*>{"cos", "40", "freqs"},
          {"mul_1", "41", "cos"},
          {"sin", "42", "freqs"},
          {"mul_2", "43", "sin"},
          {"pow", "44", "embed"}})
        nodes += std::string(nodes.empty() ? "" : ",") + R"({"name":")" + name + R"(","target":"aten.)" +
                 name + R"(","inputs":[{"name":"self","arg":{"as_tensor":{"name":")" + input +
                 R"("}}}],"outputs":[{"as_tensor":{"name":")" + name +
                 R"("}}],"metadata":{"debug_handle":")" + handle + R"("}})";
    const std::string module =
        R"({"graph_module":{"graph":{"inputs":[],"outputs":[{"as_tensor":{"name":"pow"}},)"
        R"({"as_tensor":{"name":"mul_1"}},{"as_tensor":{"name":"mul_2"}}],"nodes":[)" +
        nodes + "]}}}";
    const nlohmann::json lowered = {{"backend_id", "XnnpackBackend"},
                                    {"original_module", nlohmann::json::parse(module)}};
    nlohmann::json program = nlohmann::json::parse(
        R"({"graph_module":{"graph":{"inputs":[],"outputs":[],"nodes":[{"name":"executorch_call_delegate",)"
        R"("target":"torch.ops.higher_order.executorch_call_delegate","inputs":[{"name":"lowered_module","arg":{}}],)"
        R"("outputs":[{"as_tensors":[{"name":"getitem"},{"name":"getitem_1"},{"name":"getitem_2"}]}],)"
        R"("metadata":{"debug_handle":"162"}}]}}})");
    program["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"]["as_string"] = lowered.dump();
    const auto graph =
        parseExportGraph(program.dump(), "etrecord.bin", "edge_dialect_exported_program/forward");
    REQUIRE(graph);
    REQUIRE(graph.value().nodes.at(0).lowered);
    CHECK(graph.value().nodes[0].lowered->output_handles ==
          std::vector<std::vector<std::int64_t>>{{44}, {41}, {43}});
    const auto order = delegateOutputOrder(graph.value(), {40, 41, 42, 43, 44}, 3);
    CHECK(order.known());
    CHECK(order.handles == std::vector<std::int64_t>{44, 41, 43});
    CHECK_THAT(order.source, Catch::Contains("lowered module"));
}

// A weight norm decomposed into pow, sum, div, mul (one handle, 21), split over a
// kernel call and a delegate that also holds a linear (9): the chain runs in its
// order, so the kernel call took pow and sum and the delegate holds div and mul.
TEST_CASE("a handle split over instructions is handed out along its chain", "[align][delegate-order]") {
    ExportGraph g;
    g.nodes = {op("pow", 21, {"w"}),        op("sum", 21, {"pow"}), op("div", 21, {"g", "sum"}),
               op("mul", 21, {"w", "div"}), op("linear", 9, {"x"}), op("conv", 22, {"linear", "mul"})};
    const std::vector<std::int64_t> list{21, 21, 9};
    MethodMaps maps;
    maps.debug_handle_map[1].handles = {21}; // pow
    maps.debug_handle_map[2].handles = {21}; // sum
    maps.debug_handle_map[3].handles = list;
    maps.debug_handle_map[4].handles = {22};
    const auto spread = handleSpread(maps, 3, list);
    CHECK(spread.before.at(21) == 2);
    CHECK(spread.total.at(21) == 4);
    const auto order = delegateOutputOrder(g, list, 2, &spread);
    INFO(order.problem);
    CHECK(order.known());
    CHECK(order.handles == std::vector<std::int64_t>{21, 9}); // mul, then linear
    // Without knowing the other instructions, the places stay unfilled.
    CHECK_FALSE(delegateOutputOrder(g, list, 2).known());
    SECTION("nodes of one handle that are no chain are not handed out by order") {
        ExportGraph h = g;
        h.nodes[1].input_tensors = {"w"}; // sum no longer depends on pow
        CHECK_FALSE(delegateOutputOrder(h, list, 2, &spread).known());
    }
    SECTION("places elsewhere that do not add up to the nodes are not handed out") {
        MethodMaps fewer = maps;
        fewer.debug_handle_map.erase(1);
        const auto partial = handleSpread(fewer, 3, list);
        CHECK_FALSE(delegateOutputOrder(g, list, 2, &partial).known());
    }
}
