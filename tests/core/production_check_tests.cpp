// The debug-build check's partition comparison (production_check.h) on maps
// written out: the real builds (tests/e2e, zoo "taps") never cut a partition,
// so an op that leaves its delegate and a delegate split in two are pinned here.
#include "core/compare/production_check.h"

#include <catch2/catch.hpp>

using namespace gapscope;

namespace {

GraphNode node(std::string name, std::string target, std::int64_t handle, std::vector<std::string> in = {}) {
    GraphNode n;
    n.name = name;
    n.target = "executorch.exir.dialects.edge.ops." + target;
    n.debug_handles = {handle};
    n.input_tensors = std::move(in);
    n.output_tensors = {std::move(name)};
    return n;
}

// conv(1) → relu(2) → linear(3) → softmax(4); `delegates` groups handles per
// delegate call, any other handle runs as a kernel of its own.
EtRecord build(const std::vector<std::vector<std::int64_t>>& delegates, bool requantizeConv = false) {
    EtRecord r;
    ExportGraph g;
    g.nodes = {node("aten_convolution_default", "aten.convolution.default", 1),
               node("aten_relu_default", "aten.relu.default", 2, {"aten_convolution_default"}),
               node("aten_linear_default", "aten.linear.default", 3, {"aten_relu_default"}),
               node("aten__softmax_default", "aten._softmax.default", 4, {"aten_linear_default"})};
    if (requantizeConv)
        g.nodes.push_back(node("quantized_decomposed_quantize_per_tensor_default",
                               "quantized_decomposed.quantize_per_tensor.default", 5,
                               {"aten_convolution_default"}));
    r.edge_programs["forward"] = g;
    MethodMaps maps;
    std::int64_t instruction = 0;
    std::vector<bool> placed(6, false);
    for (const auto& d : delegates) {
        maps.debug_handle_map[instruction] = {d, true};
        maps.delegate_map[instruction] = {"XnnpackBackend", {}};
        for (const auto h : d)
            placed[h] = true;
        ++instruction;
    }
    for (std::int64_t h = 1; h <= 4; ++h)
        if (!placed[h])
            maps.debug_handle_map[instruction++] = {{h}, false};
    r.methods["forward"] = maps;
    return r;
}

} // namespace

TEST_CASE("production check: the same partitions say so") {
    const auto c =
        checkProduction(build({{1, 2, 3, 4}}), build({{1, 2, 3, 4}}), "forward", nullptr, 0, nullptr, 0, {});
    CHECK(c.samePartitions());
    CHECK(c.ops_compared == 4);
    CHECK_FALSE(c.runs_compared);
    REQUIRE(c.findings.size() == 1);
    CHECK(c.findings.front().find("same partitions") == 0);
}

TEST_CASE("production check: an op that left its delegate, and a delegate split in two") {
    // Tapped: softmax runs on the CPU and the delegate is cut after relu.
    const auto c =
        checkProduction(build({{1, 2}, {3}}), build({{1, 2, 3, 4}}), "forward", nullptr, 0, nullptr, 0, {});
    CHECK_FALSE(c.samePartitions());
    CHECK(c.tapped_delegates == 2);
    CHECK(c.production_delegates == 1);
    REQUIRE(c.differences.size() == 4);
    std::map<std::string, PlacementDifference> by;
    for (const auto& d : c.differences)
        by[d.op] = d;
    CHECK(by.at("aten__softmax_default").tapped.where == "CPU");
    CHECK(by.at("aten__softmax_default").production.where == "delegate 1 of 1 (XnnpackBackend)");
    CHECK(by.at("aten_linear_default").tapped.where == "delegate 2 of 2 (XnnpackBackend)");
    CHECK(by.at("aten_convolution_default").tapped.where == "delegate 1 of 2 (XnnpackBackend)");
    CHECK_FALSE(c.delegate_notes.empty());
}

TEST_CASE("production check: a requantised output in one build only is a difference, named") {
    const auto c = checkProduction(build({{1, 2, 3, 4}}, true), build({{1, 2, 3, 4}}), "forward", nullptr, 0,
                                   nullptr, 0, {});
    REQUIRE(c.differences.size() == 1);
    CHECK(c.differences.front().op == "aten_convolution_default");
    CHECK(c.differences.front().tapped.requantized);
    REQUIRE(c.delegate_notes.size() == 1);
    CHECK(c.delegate_notes.front().find("tapped build only (the tap broke a fusion)") != std::string::npos);
}

TEST_CASE("production check: builds of two models, or without maps, say so") {
    EtRecord other = build({{1, 2, 3, 4}});
    for (auto& n : other.edge_programs["forward"].nodes)
        n.name += "_x";
    auto c = checkProduction(build({{1, 2, 3, 4}}), other, "forward", nullptr, 0, nullptr, 0, {});
    REQUIRE_FALSE(c.findings.empty());
    CHECK(c.findings.front().find("share no op name") != std::string::npos);
    c = checkProduction(build({{1, 2, 3, 4}}), EtRecord{}, "forward", nullptr, 0, nullptr, 0, {});
    CHECK(c.findings.front().find("cannot be compared") != std::string::npos);
}
