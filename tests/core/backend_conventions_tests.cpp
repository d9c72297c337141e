// Backend rules live in one table per backend (core/backends/). The same
// events, maps and capture give QNN's behaviour under the backend name
// "QnnBackend" and ExecuTorch's Inspector rules under any other: the resolver,
// the alignment and the planner read the table, not the name.
#include "core/backends/backend_conventions.h"
#include "session_builder.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>

using namespace gapscope;
using gapscope::test::SessionBuilder;

TEST_CASE("a backend's conventions come from its table, others follow the Inspector's rules", "[backends]") {
    const auto& qnn = backendConventions("QnnBackend");
    CHECK(&qnn == &qnnConventions());
    CHECK(qnn.label == "QNN");
    CHECK(qnn.output_index_in_name);
    CHECK_FALSE(qnn.relaidAt(2));
    CHECK(qnn.relaidAt(3));
    CHECK(qnn.relaidAt(5));
    CHECK_FALSE(qnn.relaidAt(6));
    for (const char* other : {"XnnpackBackend", "", "qnnbackend", "CoreMLBackend"}) {
        INFO(other);
        const auto& c = backendConventions(other);
        CHECK(c.backend.empty());
        CHECK_FALSE(c.output_index_in_name);
        CHECK(c.internal_tensor_reason.empty());
        CHECK_FALSE(c.relaidAt(4));
        CHECK(c.reference_graph.empty());
    }
}

namespace {

// One delegate: a rank-4 conv output the delegate_map names, a tensor it does
// not name (one the delegate added), and a split whose two outputs are logged as
// "<node>@<idx>" and which the delegate_map leaves out. The capture records no
// layout and is of the exported program, not QNN's transformed graph.
const Comparison& lowered(SessionBuilder& b, const std::string& backend) {
    b.maps.debug_handle_map[0] = {{1, 2}, true};
    DelegateMapping d;
    d.backend = backend;
    d.identifiers = {{"conv@0", {1}}};
    b.maps.delegate_map[0] = d;
    b.node("conv", {1});
    b.node("split", {2}, {"conv"}, {"split_0", "split_1"});
    b.debug(0, b.tensor({1, 2, 3, 4}, {1, 1, 2, 2}), -1, "conv@0");
    b.debug(0, b.tensor({9}, {1}), -1, "input_0_quantize_0");
    b.debug(0, b.tensor({1, 2}, {2}), -1, "split@0");
    b.debug(0, b.tensor({3, 4}, {2}), -1, "split@1");
    b.record({1}, {"conv"}, {{{1, 2, 3, 4}, {1, 1, 2, 2}}});
    b.record({2}, {"split"}, {{{1, 2}, {2}}, {{3, 4}, {2}}}, true);
    b.referenceGraph("edge/forward");
    return b.compare();
}

bool hasCoverage(const Comparison& c, const std::string& kind, const std::string& what) {
    for (const auto& item : c.coverage)
        if (coverageKindName(item.kind) == kind && item.what == what)
            return true;
    return false;
}

} // namespace

TEST_CASE("the same lowering read by QNN's table and by the Inspector's rules", "[backends][qnn]") {
    SECTION("QnnBackend: layout, internal tensors, named outputs and the reference graph") {
        SessionBuilder b;
        const auto& c = lowered(b, "QnnBackend");
        const ComparisonRow* conv = nullptr;
        const ComparisonRow* split = nullptr;
        for (const auto& r : c.rows) {
            if (r.id().aot_ops == std::vector<std::string>{"conv"})
                conv = &r;
            if (r.id().aot_ops == std::vector<std::string>{"split"})
                split = &r;
        }
        REQUIRE(conv);
        CHECK(conv->status == RowStatus::Invalid);
        CHECK_THAT(conv->reason, Catch::StartsWith("QNN may hold this rank-4 tensor channels-last") &&
                                     Catch::EndsWith("capture_from_qnn_debugger"));
        CHECK(hasCoverage(c, "delegate_internal", "input_0_quantize_0"));
        REQUIRE(split);
        CHECK(split->gaps.size() == 2);
        CHECK_THAT(split->reason, Catch::StartsWith("QNN logged the node's 2 outputs"));
        REQUIRE(c.warnings.size() == 1);
        CHECK_THAT(c.warnings[0],
                   Catch::StartsWith("the program is lowered to QNN, whose debug handles are "
                                     "those of the ETRecord graph 'edge_after_transform/forward'"));
    }
    SECTION("any other backend name: the Inspector's rules alone") {
        SessionBuilder b;
        const auto& c = lowered(b, "XnnpackBackend");
        for (const auto& r : c.rows) {
            INFO(r.id().aot_ops.front());
            CHECK(r.status != RowStatus::Invalid);
            CHECK(r.reason.find("QNN") == std::string::npos);
        }
        CHECK(hasCoverage(c, "unresolved_event", "input_0_quantize_0"));
        CHECK_FALSE(hasCoverage(c, "delegate_internal", "input_0_quantize_0"));
        CHECK(c.warnings.empty());
    }
}

namespace {

// `NAME = "value"` assignments of a Python file of plain constants.
std::map<std::string, std::string> pythonConstants(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    std::map<std::string, std::string> out;
    const std::regex assignment(R"(^([A-Z_][A-Z0-9_]*) = \"([^\"]*)\"\s*$)");
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
        if (std::regex_match(line, m, assignment))
            out[m[1]] = m[2];
    return out;
}

} // namespace

TEST_CASE("the exporter's backend constants are core's table", "[backends]") {
    const std::string exporter = GAPSCOPE_EXPORTER_DIR;
    const auto py = pythonConstants(exporter + "/backend_conventions.py");
    const auto& qnn = qnnConventions();
    REQUIRE(py.count("QNN_BACKEND"));
    CHECK(py.at("QNN_BACKEND") == qnn.backend);
    REQUIRE(py.count("QNN_REFERENCE_GRAPH"));
    CHECK(py.at("QNN_REFERENCE_GRAPH") == qnn.reference_graph);
    REQUIRE(py.count("QNN_CAPTURE_FUNCTION"));
    CHECK(py.at("QNN_CAPTURE_FUNCTION") == qnn.capture_hint);
    // The function the hint names is the facade's, by that name.
    const std::string function =
        py.at("QNN_CAPTURE_FUNCTION").substr(py.at("QNN_CAPTURE_FUNCTION").rfind('.') + 1);
    std::ifstream facade(exporter + "/capture.py");
    const std::string text((std::istreambuf_iterator<char>(facade)), std::istreambuf_iterator<char>());
    CHECK(text.find("\"" + function + "\"") != std::string::npos);
    CHECK(text.find("import " + function) != std::string::npos);
}
