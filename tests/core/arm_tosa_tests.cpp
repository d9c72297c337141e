// Issue 61: the Arm backend's debug entries and the TOSA reference model's run
// that holds them (tosa_run.safetensors), read from sessions ExecuTorch's Arm
// backend, Vela and tosa-tools wrote (tests/data/arm_tosa_*,
// arm_ethosu_split_int8), and every way either can be bogus, each refused with
// the field it names.
#include "core/align/alignment.h"
#include "core/align/debug_handle_resolver.h"
#include "core/align/inspector_events.h"
#include "core/backends/arm_debug_map.h"
#include "core/backends/arm_delegate_map.h"
#include "core/backends/arm_layout.h"
#include "core/backends/arm_partitions.h"
#include "core/backends/arm_run_events.h"
#include "core/backends/tosa_run.h"
#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_writer.h"
#include "core/compare/findings.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/session/session.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace gapscope;

namespace {

const std::string kData = GAPSCOPE_TEST_DATA_DIR;

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

TosaProgramRun programRunOf(const std::string& session) {
    auto file = MappedFile::open(kData + "/" + session + "/tosa_run.safetensors");
    REQUIRE(file);
    auto run = readTosaRun(file.value());
    if (!run)
        FAIL(run.error().describe());
    return std::move(run.value());
}

// The run of a session's one delegate call.
TosaRun runOf(const std::string& session) {
    TosaProgramRun program = programRunOf(session);
    REQUIRE(program.delegates.size() == 1);
    return std::move(program.delegates.front());
}

ArmDebugMap debugMapOf(const std::string& session) {
    return runOf(session).debug;
}

// armDelegateMap on `run` with the debug entries `map` (the synthetic cases).
ArmDelegateMap mapOf(const ArmDebugMap& map, TosaRun run, const AotCapture& capture, const ExportGraph* graph,
                     const std::vector<std::int64_t>* handles, const AotCapture* naming = nullptr) {
    run.debug = map;
    return armDelegateMap(run, capture, graph, handles, naming);
}

// A debug entry as the Arm backend writes one, naming `tensor` (the synthetic runs).
nlohmann::json debugEntry(std::size_t id, const std::string& tensor, const std::string& op) {
    return {{"event_id", id},
            {"tosa_info", {{"node_name", tensor}, {"operator_name", "Op." + op}}},
            {"aten_info", {{"node_name", tensor}, {"operator_name", "tosa." + op + ".default"}}},
            {"torch_info",
             {{"node_trace", "No node trace available."}, {"stack_trace", nlohmann::json::array()}}}};
}

// A gapscope.tosa_run document of one delegate with no ops (SyntheticRun and
// the bogus runs add theirs).
nlohmann::json oneDelegateDocument() {
    return {{"format", "gapscope.tosa_run"},
            {"version", 2},
            {"cpu_ops", nlohmann::json::array()},
            {"delegates",
             {{{"backend", "TOSABackend"},
               {"tosa_file", {{"name", "g.tosa"}, {"sha256", "00"}}},
               {"tensor_prefix", "d0/"},
               {"graph_inputs", nlohmann::json::array()},
               {"graph_input_types", nlohmann::json::array()},
               {"graph_outputs", nlohmann::json::array()},
               {"graph_output_types", nlohmann::json::array()},
               {"call",
                {{"node", "executorch_call_delegate"},
                 {"inputs", nlohmann::json::array()},
                 {"outputs", nlohmann::json::array()}}},
               {"ops", nlohmann::json::array()},
               {"debug", nlohmann::json::array()}}}}};
}

// `session`'s tosa_run.safetensors with its document changed by `edit`: the
// header rewritten, the tensors' bytes as they are (their offsets are from the
// end of the header).
std::vector<std::uint8_t> withTosaDocument(const std::string& session,
                                           const std::function<void(nlohmann::json&)>& edit) {
    const std::string raw = slurp(kData + "/" + session + "/tosa_run.safetensors");
    std::uint64_t size = 0;
    std::memcpy(&size, raw.data(), 8);
    nlohmann::json header = nlohmann::json::parse(raw.substr(8, size));
    nlohmann::json doc =
        nlohmann::json::parse(header["__metadata__"][kTosaRunMetadataKey].get<std::string>());
    edit(doc);
    header["__metadata__"][kTosaRunMetadataKey] = doc.dump();
    std::string text = header.dump();
    while (text.size() % 8 != 0)
        text.push_back(' ');
    std::vector<std::uint8_t> out(8);
    const std::uint64_t n = text.size();
    std::memcpy(out.data(), &n, 8);
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), raw.begin() + 8 + static_cast<std::ptrdiff_t>(size), raw.end());
    return out;
}

// The record of the AOT capture that names `node` among its ops.
const CaptureRecord* recordOf(const AotCapture& capture, const std::string& node) {
    for (const auto& r : capture.records)
        if (std::find(r.ops.begin(), r.ops.end(), node) != r.ops.end())
            return &r;
    return nullptr;
}

std::vector<float> floats(ByteSpan bytes) {
    std::vector<float> out(bytes.size / 4);
    std::memcpy(out.data(), bytes.data, out.size() * 4);
    return out;
}

// A TOSA run built in memory: ops of [2,2] INT8 tensors unless given, read
// back through readTosaRun (the synthetic cases of the delegate map's rules).
struct SyntheticOp {
    std::string output, op;
    std::vector<std::string> inputs;
    std::vector<std::int64_t> shape = {2, 2};
    std::vector<std::int64_t> perms = {};
};
struct SyntheticRun {
    explicit SyntheticRun(const std::vector<SyntheticOp>& ops,
                          const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& inputs = {
                              {"x", {2, 2}}}) {
        SafetensorsWriter w;
        nlohmann::json doc = oneDelegateDocument();
        nlohmann::json& d = doc["delegates"][0];
        const auto add = [&](const std::string& name, const std::vector<std::int64_t>& shape) {
            std::size_t n = 1;
            for (const auto dim : shape)
                n *= static_cast<std::size_t>(dim);
            REQUIRE_FALSE(w.add("d0/" + name, ScalarType::Char, shape, std::vector<std::uint8_t>(n, 1)));
        };
        for (const auto& [name, shape] : inputs) {
            add(name, shape);
            d["graph_inputs"].push_back(name);
            d["graph_input_types"].push_back("INT8");
            d["call"]["inputs"].push_back({{"dtype", "int8"}, {"from", nullptr}});
        }
        std::size_t index = 0;
        for (const auto& o : ops) {
            add(o.output, o.shape);
            nlohmann::json op{{"index", index},  {"op", o.op},       {"output", o.output},
                              {"dtype", "INT8"}, {"shape", o.shape}, {"inputs", o.inputs}};
            if (!o.perms.empty())
                op["perms"] = o.perms;
            d["ops"].push_back(op);
            d["debug"].push_back(debugEntry(index++, o.output, o.op));
        }
        w.setMetadata(kTosaRunMetadataKey, doc.dump());
        bytes = w.serialize();
        auto file = MappedFile::fromBytes("run.safetensors", bytes.data(), bytes.size());
        auto read = readTosaRun(file);
        if (!read)
            FAIL(read.error().describe());
        run = std::move(read.value().delegates.front());
    }
    std::vector<std::uint8_t> bytes;
    TosaRun run{};
};

// A committed session's run tied to its ETRecord and capture, as the session does.
struct Tied {
    TosaRun run;
    MethodMaps maps;
    std::int64_t instruction = 0;
    ArmDelegateMap arm;
};
Tied tie(const std::string& session, const std::string& captureName = "capture.gscap.safetensors") {
    auto etrecord = loadEtRecord(kData + "/" + session + "/etrecord.bin");
    REQUIRE(etrecord);
    auto capture = loadAotCapture(kData + "/" + session + "/" + captureName);
    REQUIRE(capture);
    Tied t{runOf(session), *etrecord.value().maps(), 0, {}};
    // The ETRecord's own entry for the delegate: TOSABackend, no map.
    REQUIRE(t.maps.delegate_map.size() == 1);
    t.instruction = t.maps.delegate_map.begin()->first;
    CHECK(t.maps.delegate_map.begin()->second.backend == kArmTosaBackend);
    CHECK(t.maps.delegate_map.begin()->second.identifiers.empty());
    t.arm = armDelegateMap(t.run, capture.value(), &*etrecord.value().exported_program,
                           &t.maps.debug_handle_map.at(t.instruction).handles);
    return t;
}

std::string debugRefusal(const std::string& text) {
    const auto map = readArmDebugMap(text, "debug.json");
    REQUIRE_FALSE(map);
    return map.error().describe();
}

} // namespace

TEST_CASE("the Arm backend's debug map names each TOSA op's output and the nodes it came from", "[arm]") {
    const ArmDebugMap map = debugMapOf("arm_tosa_int8");
    std::vector<std::string> ops, oldest;
    for (const auto& e : map.events) {
        ops.push_back(e.tosa_op);
        oldest.push_back(e.oldest());
        CHECK(e.event_id == static_cast<std::int64_t>(&e - map.events.data()));
        CHECK_FALSE(e.stack_trace.empty());
    }
    // INT: the ReLU is folded into the convolution's RESCALE (no op names it);
    // a linear is a 1x1 CONV2D between RESHAPEs.
    CHECK(ops == std::vector<std::string>{"TRANSPOSE", "CONV2D", "RESCALE", "TRANSPOSE", "RESHAPE", "CONV2D",
                                          "RESCALE", "RESHAPE"});
    CHECK(oldest == std::vector<std::string>{"conv2d", "conv2d", "conv2d", "conv2d", "flatten", "linear",
                                             "linear", "linear"});
    // The trace runs newest first: the Edge program's convolution, back to the
    // exported conv2d, each node once per name and target.
    using Node = ArmDebugEvent::TraceNode;
    CHECK(map.events[0].trace ==
          std::vector<Node>{{"convolution", "aten.convolution.default"}, {"conv2d", "aten.conv2d.default"}});
    // FP: the ReLU is a CLAMP, moved after the flatten's RESHAPE.
    const ArmDebugMap fp = debugMapOf("arm_tosa_fp32");
    const auto clamp = std::find_if(fp.events.begin(), fp.events.end(),
                                    [](const ArmDebugEvent& e) { return e.tosa_op == "CLAMP"; });
    REQUIRE(clamp != fp.events.end());
    CHECK(clamp->oldest() == "relu");
}

TEST_CASE("a TOSA run holds every op with its debug entry, and the call it ran for", "[arm]") {
    for (const std::string session : {"arm_tosa_int8", "arm_tosa_fp32"}) {
        INFO(session);
        const ArmDebugMap map = debugMapOf(session);
        const TosaRun run = runOf(session);
        std::set<std::string> named, run_ops;
        for (const auto& e : map.events)
            named.insert(e.tosa_tensor);
        for (const auto& o : run.ops)
            run_ops.insert(o.output);
        CHECK(named == run_ops);
        CHECK(run.backend == kArmTosaBackend);
        CHECK(run.tosa_name.find("delegate 0") == 0);
        // The call's sides: the program's int8 (INT) or float32 (FP) input from
        // its input quantize or the program's input, as the graph declares it.
        REQUIRE(run.call_inputs.size() == 1);
        const bool int8 = session == "arm_tosa_int8";
        CHECK(run.call_inputs[0].dtype == (int8 ? "int8" : "float32"));
        CHECK(run.graph_input_types == std::vector<std::string>{int8 ? "INT8" : "FP32"});
        CHECK(run.call_inputs[0].nodes.size() == (int8 ? 1u : 0u));
        // The convolution's TRANSPOSEs to channels-last and back, with their permutations.
        std::vector<std::vector<std::int64_t>> perms;
        for (const auto& o : run.ops)
            if (o.op == "TRANSPOSE")
                perms.push_back(o.perms);
            else
                CHECK(o.perms.empty());
        CHECK(perms == std::vector<std::vector<std::int64_t>>{{0, 2, 3, 1}, {0, 3, 1, 2}});
    }
}

TEST_CASE("the Arm delegate map gives each group's last TOSA op its rows' handles, and ExecuTorch's "
          "resolver finds each exactly",
          "[arm]") {
    // session → the TOSA tensor compared → the handles it carries; and the note's words.
    const std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> expected = {
        // INT: the ReLU, with no TOSA op, is folded into the convolution's RESCALE.
        {"arm_tosa_int8",
         {{"tosa_transpose_default_1", {6, 7}},
          {"tosa_reshape_default", {8}},
          {"tosa_reshape_default_1", {9}}}},
        // FP: the flatten's RESHAPE runs before the ReLU's CLAMP: one group.
        {"arm_tosa_fp32",
         {{"tosa_transpose_default_1", {1}},
          {"tosa_clamp_default", {2, 3}},
          {"tosa_reshape_default_1", {4}}}}};
    const std::map<std::string, std::string> why = {{"arm_tosa_int8", "relu has no TOSA op of its own"},
                                                    {"arm_tosa_fp32", "the Arm backend reordered them"}};
    for (const auto& [session, mapped] : expected) {
        INFO(session);
        const Tied tied = tie(session);
        const ArmDelegateMap& arm = tied.arm;
        CHECK(arm.unmapped.empty());
        CHECK(arm.runtime_problems.empty());
        CHECK(arm.axis_orders.empty()); // every compared tensor is back in torch's order
        REQUIRE(arm.notes.size() == 1);
        CHECK_THAT(arm.notes[0], Catch::Contains(why.at(session)));
        std::map<std::string, std::vector<std::int64_t>> got(arm.mapping.identifiers.begin(),
                                                             arm.mapping.identifiers.end());
        CHECK(got == mapped);
        REQUIRE(arm.mapping.identifiers.size() + arm.inside.size() == tied.run.ops.size());
        // As ExecuTorch's Inspector resolves a delegate's string ids (the substring
        // rule included), on the delegate call's instruction of the ETRecord.
        MethodMaps maps = tied.maps;
        maps.delegate_map[tied.instruction] = arm.mapping;
        for (const auto& op : tied.run.ops) {
            INFO(op.output);
            EventKey key;
            key.instruction_id = static_cast<std::int32_t>(tied.instruction);
            key.delegate_debug_id_str = op.output;
            const ResolvedHandles resolved = resolveDebugHandles(&maps, key);
            if (!mapped.count(op.output)) { // an op before its group's last: no handle of its own
                CHECK(resolved.source == HandleSource::None);
                continue;
            }
            CHECK(resolved.source == HandleSource::DelegateExact);
            CHECK(resolved.handles == mapped.at(op.output));
            CHECK(resolved.backend == kArmTosaBackend);
        }
    }
}

TEST_CASE("the Arm delegate map's rules, one at a time", "[arm]") {
    // Nodes a, b, c in a chain; rows 4, 5, 6 keyed by them.
    const auto capture = [] {
        AotCapture c;
        for (const auto& [h, n] : {std::pair<std::int64_t, std::string>{4, "a"}, {5, "b"}, {6, "c"}})
            c.records.push_back(
                CaptureRecord{{h}, {n}, {}, false, {}, {}, std::nullopt, std::nullopt, std::nullopt});
        return c;
    }();
    const auto graphOf = [](std::vector<std::pair<std::string, std::string>> chain) {
        ExportGraph g;
        for (const auto& [name, input] : chain) {
            GraphNode n;
            n.debug_handles = {static_cast<std::int64_t>(4 + g.nodes.size())};
            n.name = name;
            n.target = "torch.ops.aten." + name + ".default";
            n.input_tensors = {input};
            n.output_tensors = {name};
            g.nodes.push_back(n);
        }
        return g;
    };
    const ExportGraph chain = graphOf({{"a", "x"}, {"b", "a"}, {"c", "b"}});
    const auto event = [](const std::string& tensor, const std::string& node) {
        ArmDebugEvent e;
        e.tosa_tensor = tensor;
        e.trace = {{node, "aten." + node + ".default"}};
        return e;
    };
    SECTION("one TOSA name inside another: the exact key wins") {
        const SyntheticRun run({{"t", "CLAMP", {"x"}}, {"t_1", "CLAMP", {"t"}}, {"t_2", "CLAMP", {"t_1"}}});
        ArmDebugMap map;
        map.events = {event("t", "a"), event("t_1", "b"), event("t_2", "c")};
        const ArmDelegateMap arm = mapOf(map, run.run, capture, &chain, nullptr);
        MethodMaps maps;
        maps.delegate_map[1] = arm.mapping;
        maps.debug_handle_map[1] = InstructionHandles{{4, 5, 6}, true};
        EventKey key;
        key.instruction_id = 1;
        key.delegate_debug_id_str = "t_1";
        CHECK(resolveDebugHandles(&maps, key).handles == std::vector<std::int64_t>{5});
        CHECK(arm.notes.empty());
    }
    SECTION("a trace's node of another target is another graph's, not the row's") {
        const SyntheticRun run({{"t", "CLAMP", {"x"}}});
        ArmDebugMap map;
        map.events = {event("t", "a")};
        map.events[0].trace = {{"b", "aten.conv2d.default"}, {"a", "aten.a.default"}};
        const ArmDelegateMap arm = mapOf(map, run.run, capture, &chain, nullptr);
        REQUIRE(arm.mapping.identifiers.size() == 1);
        CHECK(arm.mapping.identifiers[0].second == std::vector<std::int64_t>{4});
    }
    SECTION("an op whose trace names no node of the graph takes its neighbours' row, or the node "
            "between them with no op of its own") {
        // t (a) → u (a pass's TABLE) → v (a): inside a's ops.
        const SyntheticRun inside({{"t", "CLAMP", {"x"}}, {"u", "TABLE", {"t"}}, {"v", "CLAMP", {"u"}}});
        ArmDebugMap map;
        map.events = {event("t", "a"), event("u", "tosa_table_default"), event("v", "a")};
        ArmDelegateMap arm = mapOf(map, inside.run, capture, &chain, nullptr);
        CHECK(arm.unmapped.empty());
        CHECK(arm.inside.size() == 2);
        // t (a) → u (TABLE) → v (c): u computes b, the node between with no op.
        map.events[2] = event("v", "c");
        arm = mapOf(map, inside.run, capture, &chain, nullptr);
        CHECK(arm.unmapped.empty());
        std::map<std::string, std::vector<std::int64_t>> got(arm.mapping.identifiers.begin(),
                                                             arm.mapping.identifiers.end());
        CHECK(got == std::map<std::string, std::vector<std::int64_t>>{{"t", {4}}, {"u", {5}}, {"v", {6}}});
        // With no graph, the node between cannot be told: said, never guessed.
        arm = mapOf(map, inside.run, capture, nullptr, nullptr);
        REQUIRE(arm.unmapped.size() == 1);
        CHECK(arm.unmapped[0].first == "u");
        CHECK_THAT(arm.unmapped[0].second, Catch::Contains("tosa_table_default") &&
                                               Catch::Contains("do not tell which node it computes"));
    }
    SECTION("a node two rows name is never guessed") {
        AotCapture twice = capture; // handle 4 is a's row's and c's
        twice.records[2].debug_handle = {6, 4};
        const SyntheticRun run({{"t", "CLAMP", {"x"}}});
        ArmDebugMap map;
        map.events = {event("t", "a")};
        const ArmDelegateMap arm = mapOf(map, run.run, twice, &chain, nullptr);
        REQUIRE(arm.unmapped.size() == 1);
        CHECK_THAT(arm.unmapped[0].second, Catch::Contains("several of the capture's rows"));
    }
    SECTION("a row with no op of its own joins the row before it only when its shape is that row's") {
        // a, b: both [2,2] (b folded into a's ops); c has ops.
        const SyntheticRun run({{"t", "CLAMP", {"x"}}, {"v", "CLAMP", {"t"}}});
        ArmDebugMap map;
        map.events = {event("t", "a"), event("v", "c")};
        AotCapture shaped = capture;
        const SyntheticRun shapes({{"ra", "CLAMP", {"x"}}, {"rb", "CLAMP", {"x"}}});
        for (std::size_t i = 0; i < 2; ++i) {
            shaped.records[i].outputs = {CaptureValue{}};
            shaped.records[i].outputs[0].kind = CaptureValue::Kind::Tensor;
            shaped.records[i].outputs[0].resolved = &shapes.run.ops[i].tensor;
        }
        ArmDelegateMap arm = mapOf(map, run.run, shaped, &chain, nullptr);
        std::map<std::string, std::vector<std::int64_t>> got(arm.mapping.identifiers.begin(),
                                                             arm.mapping.identifiers.end());
        CHECK(got == std::map<std::string, std::vector<std::int64_t>>{{"t", {4, 5}}, {"v", {6}}});
        REQUIRE(arm.notes.size() == 1);
        CHECK_THAT(arm.notes[0], Catch::Contains("b has no TOSA op of its own (folded into a's)"));
        // b outside the delegate's handles: not folded.
        const std::vector<std::int64_t> delegated{4, 6};
        arm = mapOf(map, run.run, shaped, &chain, &delegated);
        got = {arm.mapping.identifiers.begin(), arm.mapping.identifiers.end()};
        CHECK(got == std::map<std::string, std::vector<std::int64_t>>{{"t", {4}}, {"v", {6}}});
        // A float model's capture with no value for b (no counterpart in the
        // program): b's shape is the program's capture's, so it folds the same.
        AotCapture floatModel = shaped;
        floatModel.records[1].outputs[0] = CaptureValue{};
        arm = mapOf(map, run.run, floatModel, &chain, nullptr, &shaped);
        got = {arm.mapping.identifiers.begin(), arm.mapping.identifiers.end()};
        CHECK(got == std::map<std::string, std::vector<std::int64_t>>{{"t", {4, 5}}, {"v", {6}}});
        arm = mapOf(map, run.run, floatModel, &chain, nullptr); // no shape for b anywhere: not folded
        got = {arm.mapping.identifiers.begin(), arm.mapping.identifiers.end()};
        CHECK(got == std::map<std::string, std::vector<std::int64_t>>{{"t", {4}}, {"v", {6}}});
    }
    SECTION("two rows whose ops a pass swapped are one group") {
        // The graph is a → b → c; the TOSA graph runs a, then c's op, then b's.
        const SyntheticRun run({{"t", "CLAMP", {"x"}}, {"u", "CLAMP", {"t"}}, {"v", "CLAMP", {"u"}}});
        ArmDebugMap map;
        map.events = {event("t", "a"), event("u", "c"), event("v", "b")};
        const ArmDelegateMap arm = mapOf(map, run.run, capture, &chain, nullptr);
        std::map<std::string, std::vector<std::int64_t>> got(arm.mapping.identifiers.begin(),
                                                             arm.mapping.identifiers.end());
        CHECK(got == std::map<std::string, std::vector<std::int64_t>>{{"t", {4}}, {"v", {5, 6}}});
        REQUIRE(arm.notes.size() == 1);
        CHECK_THAT(arm.notes[0], Catch::Contains("b, c: compared as one") &&
                                     Catch::Contains("the Arm backend reordered them"));
    }
}

TEST_CASE("a TOSA tensor's layout against torch's follows from the graph", "[arm]") {
    // x [1,3,4,5] NCHW → TRANSPOSE (NHWC) → CONV2D → CLAMP → TRANSPOSE back → RESHAPE.
    const SyntheticRun run({{"t", "TRANSPOSE", {"x"}, {1, 4, 5, 3}, {0, 2, 3, 1}},
                            {"c", "CONV2D", {"t", "w"}, {1, 4, 5, 8}},
                            {"r", "CLAMP", {"c"}, {1, 4, 5, 8}},
                            {"b", "TRANSPOSE", {"r"}, {1, 8, 4, 5}, {0, 3, 1, 2}},
                            {"s", "RESHAPE", {"b"}, {1, 160}},
                            {"bad", "RESHAPE", {"r"}, {1, 160}},
                            {"odd", "CONV2D", {"b", "w"}, {1, 4, 5, 8}},
                            {"lin", "RESHAPE", {"s"}, {1, 1, 1, 160}},
                            {"fc", "CONV2D", {"lin", "w"}, {1, 1, 1, 10}},
                            {"fco", "RESHAPE", {"fc"}, {1, 10}}},
                           {{"x", {1, 3, 4, 5}}});
    const std::vector<AxisOrder> orders = tosaAxisOrders(run.run);
    using Order = std::vector<std::int64_t>;
    REQUIRE(orders.size() == 10);
    CHECK(orders[0] == Order{0, 2, 3, 1});
    CHECK(orders[1] == Order{0, 2, 3, 1}); // channels-last by TOSA's definition
    CHECK(orders[2] == Order{0, 2, 3, 1}); // elementwise: as its input
    CHECK(orders[3] == Order{0, 1, 2, 3}); // composed: back in torch's order
    CHECK(orders[4] == Order{0, 1});
    CHECK_FALSE(orders[5]);                // a reshape of a channels-last tensor is not torch's reshape
    CHECK_FALSE(orders[6]);                // a CONV2D of a tensor not channels-last
    CHECK(orders[8] == Order{0, 2, 3, 1}); // a linear's 1x1 CONV2D: size-1 axes make both orders one
    CHECK(orders[9] == Order{0, 1});
    CHECK(keepsElementOrder({0, 2, 3, 1}, {1, 1, 1, 10}));
    CHECK_FALSE(keepsElementOrder({0, 2, 3, 1}, {1, 4, 5, 8}));
}

TEST_CASE("the TOSA run's tensors are the reference model's: int8 and int32 kept, float as torch's",
          "[arm]") {
    const TosaRun run = runOf("arm_tosa_int8");
    REQUIRE(run.ops.size() == 8);
    // The delegate's input: the int8 the program's quantize op (outside it) made.
    CHECK(run.graph_inputs == std::vector<std::string>{"quantized_decomposed_quantize_per_tensor_default"});
    CHECK(run.inputs.at(run.graph_inputs[0]).dtype == "I8");
    CHECK(run.producer.count("tosa-tools") == 1);
    for (const auto& o : run.ops) {
        INFO(o.output);
        CHECK(o.tensor.dtype == *tosaSafetensorsDtype(o.dtype));
        CHECK(run.file.bytes(o.tensor).size == o.tensor.numel * (o.dtype == "INT32" ? 4 : 1));
    }
    CHECK(run.find("tosa_conv2d_default")->dtype == "INT32");
    CHECK(run.find("tosa_rescale_default")->dtype == "INT8");

    // FP: the convolution transposed back to NCHW is the capture's conv2d, within rounding.
    const TosaRun fp = runOf("arm_tosa_fp32");
    auto capture = loadAotCapture(kData + "/arm_tosa_fp32/capture.gscap.safetensors");
    REQUIRE(capture);
    const CaptureRecord* conv = recordOf(capture.value(), "conv2d");
    REQUIRE(conv);
    REQUIRE(conv->outputs.size() == 1);
    const TosaRunOp* back = fp.find("tosa_transpose_default_1");
    REQUIRE(back);
    CHECK(back->shape == std::vector<std::int64_t>{1, 8, 16, 16});
    const auto reference = floats(capture.value().file->bytes(*capture.value().tensor(conv->outputs[0])));
    const auto device = floats(fp.file.bytes(back->tensor));
    REQUIRE(reference.size() == device.size());
    double worst = 0;
    for (std::size_t i = 0; i < device.size(); ++i)
        worst = std::max(worst, std::abs(double(device[i]) - double(reference[i])));
    CHECK(worst < 1e-5);
    CHECK(worst > 0); // the reference model's own rounding, not a copy of torch's
}

TEST_CASE("Bogus Arm debug maps are refused with the entry and field they fail at", "[arm][bogus]") {
    // The committed INT8 run's entries, as its document holds them.
    std::string good;
    withTosaDocument("arm_tosa_int8",
                     [&](nlohmann::json& doc) { good = doc["delegates"][0]["debug"].dump(); });
    REQUIRE(readArmDebugMap(good, "debug.json"));
    CHECK_THAT(debugRefusal(""), Catch::Contains("empty"));
    CHECK_THAT(debugRefusal("{\"a\": 1}"), Catch::Contains("not a list of entries"));
    CHECK_THAT(debugRefusal("[1, 2"), Catch::Contains("not JSON"));
    CHECK_THAT(debugRefusal("[{\"a\": 1, \"a\": 2}]"), Catch::Contains("appears twice"));
    CHECK_THAT(debugRefusal(std::string(100, '[') + std::string(100, ']')), Catch::Contains("nested deeper"));
    CHECK_THAT(debugRefusal("[3]"), Catch::Contains("[0]") && Catch::Contains("not an object"));

    nlohmann::json entries = nlohmann::json::parse(good);
    const auto refused = [&](auto change) {
        nlohmann::json copy = entries;
        change(copy);
        return debugRefusal(copy.dump());
    };
    CHECK_THAT(refused([](auto& j) { j[2].erase("tosa_info"); }),
               Catch::Contains("[2].tosa_info") && Catch::Contains("missing"));
    CHECK_THAT(refused([](auto& j) { j[1]["tosa_info"]["node_name"] = 7; }),
               Catch::Contains("[1].tosa_info.node_name") && Catch::Contains("not a string"));
    CHECK_THAT(refused([](auto& j) { j[0]["tosa_info"]["node_name"] = ""; }), Catch::Contains("empty"));
    CHECK_THAT(refused([](auto& j) { j[3]["event_id"] = "three"; }), Catch::Contains("[3].event_id"));
    CHECK_THAT(refused([](auto& j) { j[4]["torch_info"]["node_trace"] = 5; }),
               Catch::Contains("[4].torch_info.node_trace"));
    CHECK_THAT(refused([](auto& j) { j[4]["torch_info"]["node_trace"][1] = nlohmann::json::object(); }),
               Catch::Contains("[4].torch_info.node_trace[1].name") && Catch::Contains("missing"));
    CHECK_THAT(refused([](auto& j) { j[0]["torch_info"]["stack_trace"] = "a line"; }),
               Catch::Contains("[0].torch_info.stack_trace"));
    CHECK_THAT(refused([](auto& j) { j[5]["tosa_info"]["node_name"] = j[1]["tosa_info"]["node_name"]; }),
               Catch::Contains("[5].tosa_info.node_name") && Catch::Contains("entry 1 too"));
    // The schema's note where no trace was kept is no error: the oldest node is the node itself.
    nlohmann::json noted = entries;
    noted[0]["torch_info"]["node_trace"] = "No node trace available.";
    const auto read = readArmDebugMap(noted.dump(), "debug.json");
    REQUIRE(read);
    CHECK(read.value().events[0].trace.empty());
    CHECK(read.value().events[0].oldest() == read.value().events[0].aten_node);
}

TEST_CASE("Bogus TOSA runs are refused with the field they fail at", "[arm][bogus]") {
    const auto document = [] {
        nlohmann::json doc = oneDelegateDocument();
        nlohmann::json& d = doc["delegates"][0];
        d["graph_inputs"] = {"x"};
        d["graph_input_types"] = {"INT8"};
        d["graph_outputs"] = {"y"};
        d["graph_output_types"] = {"INT8"};
        d["call"]["inputs"] = {{{"dtype", "int8"}, {"from", nullptr}}};
        d["call"]["outputs"] = {
            {{"dtype", "int8"}, {"to", nlohmann::json::array()}, {"program_output", true}}};
        d["ops"] = {{{"index", 0},
                     {"op", "CLAMP"},
                     {"output", "y"},
                     {"dtype", "INT8"},
                     {"shape", {2, 2}},
                     {"inputs", {"x"}}}};
        d["debug"] = {debugEntry(0, "y", "CLAMP")};
        return doc;
    };
    const auto refusal = [](const nlohmann::json& doc, bool withMetadata = true,
                            ScalarType yType = ScalarType::Char) -> std::string {
        SafetensorsWriter w;
        REQUIRE_FALSE(w.add("d0/x", ScalarType::Char, {2, 2}, std::vector<std::uint8_t>(4, 1)));
        REQUIRE_FALSE(w.add("d0/y", yType, {2, 2},
                            std::vector<std::uint8_t>(4 * (yType == ScalarType::Char ? 1 : 4), 2)));
        if (withMetadata)
            w.setMetadata(kTosaRunMetadataKey, doc.dump());
        const auto bytes = w.serialize();
        auto file = MappedFile::fromBytes("run.safetensors", bytes.data(), bytes.size());
        const auto run = readTosaRun(file);
        if (run)
            return {};
        return run.error().describe();
    };
    REQUIRE(refusal(document()).empty());
    CHECK_THAT(refusal(document(), false), Catch::Contains("no TOSA run document"));
    auto doc = document();
    doc["format"] = "gapscope.aot_capture";
    CHECK_THAT(refusal(doc), Catch::Contains("gapscope.tosa_run.format"));
    doc = document();
    doc["version"] = 1;
    CHECK_THAT(refusal(doc), Catch::Contains("version") && Catch::Contains("only version 2"));
    doc = document();
    doc["delegates"][0].erase("tosa_file");
    CHECK_THAT(refusal(doc), Catch::Contains("tosa_file") && Catch::Contains("missing"));
    doc = document();
    doc["delegates"][0]["ops"][0]["output"] = "z";
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].output") && Catch::Contains("names no tensor"));
    doc = document();
    doc["delegates"][0]["ops"][0]["dtype"] = "INT48";
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].dtype") && Catch::Contains("INT48"));
    CHECK_THAT(refusal(document(), true, ScalarType::Int),
               Catch::Contains("ops[0].dtype") && Catch::Contains("stored as I32"));
    doc = document();
    doc["delegates"][0]["ops"][0]["shape"] = {4};
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].shape") && Catch::Contains("another shape"));
    doc = document();
    doc["delegates"][0]["ops"][0]["shape"][0] = -2;
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].shape[0]"));
    doc = document();
    doc["delegates"][0]["ops"].push_back(doc["delegates"][0]["ops"][0]);
    doc["delegates"][0]["debug"].push_back(doc["delegates"][0]["debug"][0]);
    CHECK_THAT(refusal(doc), Catch::Contains("ops[1].output") && Catch::Contains("another op's output"));
    doc = document();
    doc["delegates"][0]["graph_outputs"] = {"z"};
    CHECK_THAT(refusal(doc),
               Catch::Contains("graph_outputs[0]") && Catch::Contains("no op's output, nor a constant"));
    doc = document();
    doc["delegates"][0]["graph_output_types"] = nlohmann::json::array();
    CHECK_THAT(refusal(doc),
               Catch::Contains("graph_output_types") && Catch::Contains("0 types for 1 outputs"));
    doc = document();
    doc["delegates"][0]["graph_inputs"] = {"w"};
    CHECK_THAT(refusal(doc), Catch::Contains("graph_inputs[0]"));
    doc = document();
    doc["delegates"][0]["ops"][0]["index"] = -1;
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].index"));
    // Version 2: each delegate's debug entries, its call's sides, its place.
    doc = document();
    doc["delegates"][0]["debug"] = nlohmann::json::array();
    CHECK_THAT(refusal(doc),
               Catch::Contains("delegates[0].debug") && Catch::Contains("one debug entry per op"));
    doc = document();
    doc["delegates"][0]["debug"][0]["tosa_info"]["node_name"] = "x";
    CHECK_THAT(refusal(doc),
               Catch::Contains("debug[0].tosa_info.node_name") && Catch::Contains("op 0's output"));
    doc = document();
    doc["delegates"][0]["debug"][0].erase("aten_info");
    CHECK_THAT(refusal(doc), Catch::Contains("delegates[0].debug") && Catch::Contains("aten_info"));
    doc = document();
    doc["delegates"][0]["graph_input_types"] = nlohmann::json::array();
    CHECK_THAT(refusal(doc), Catch::Contains("graph_input_types") && Catch::Contains("0 types for 1 inputs"));
    doc = document();
    doc["delegates"][0]["call"]["inputs"] = nlohmann::json::array();
    CHECK_THAT(refusal(doc),
               Catch::Contains("delegates[0].call.inputs") && Catch::Contains("one per graph input"));
    doc = document();
    doc["delegates"][0]["call"]["outputs"][0]["program_output"] = "yes";
    CHECK_THAT(refusal(doc), Catch::Contains("call.outputs[0].program_output"));
    doc = document();
    doc["delegates"][0]["call"]["inputs"][0]["from"] = {{"node", 1}};
    CHECK_THAT(refusal(doc), Catch::Contains("call.inputs[0].from.node"));
    doc = document();
    doc["delegates"][0]["backend"] = "XnnpackBackend";
    CHECK_THAT(refusal(doc),
               Catch::Contains("delegates[0].backend") && Catch::Contains("not an Arm backend"));
    doc = document();
    doc["delegates"] = nlohmann::json::array();
    CHECK_THAT(refusal(doc), Catch::Contains("gapscope.tosa_run.delegates"));
    doc = document();
    doc["delegates"].push_back(doc["delegates"][0]);
    CHECK_THAT(refusal(doc),
               Catch::Contains("delegates[1].tensor_prefix") && Catch::Contains("another delegate"));
    doc = document();
    doc["delegates"][0]["tensor_prefix"] = "d1/";
    CHECK_THAT(refusal(doc), Catch::Contains("delegates[0].ops[0].output") && Catch::Contains("d1/y"));
    doc = document();
    doc.erase("cpu_ops");
    CHECK_THAT(refusal(doc), Catch::Contains("cpu_ops") && Catch::Contains("missing"));
    CHECK_THAT(refusal(nlohmann::json::array()), Catch::Contains("not an object"));
}

TEST_CASE("a TOSA run as the delegate's events aligns with the AOT capture by ExecuTorch's rules", "[arm]") {
    for (const std::string session : {"arm_tosa_int8", "arm_tosa_fp32"}) {
        INFO(session);
        const Tied tied = tie(session);
        const TosaRun& run = tied.run;
        MethodMaps maps = tied.maps;
        maps.delegate_map[tied.instruction] = tied.arm.mapping;
        auto capture = loadAotCapture(kData + "/" + session + "/capture.gscap.safetensors");
        REQUIRE(capture);

        const EtDump dump = armRunEtDump({{&run, static_cast<std::int32_t>(tied.instruction)}});
        REQUIRE(dump.runs.size() == 1);
        REQUIRE(dump.runs[0].events.size() == run.ops.size());
        for (const auto& e : dump.runs[0].events) { // each tensor read in place is the run's
            const auto& d = std::get<DebugEvent>(e);
            const Tensor& t = d.debug_entry->tensors[0];
            const TosaRunOp* op = run.find(*d.delegate_debug_id_str);
            REQUIRE(op);
            const ByteSpan a = dump.tensorBytes(t), b = run.file.bytes(op->tensor);
            REQUIRE(a.size == b.size);
            CHECK(a.data == b.data);
        }
        const auto events = buildInspectorEvents(dump.runs[0], &maps, OpHandles::every());
        for (const auto& e : events) {
            INFO(e.name);
            const bool inside = std::any_of(tied.arm.inside.begin(), tied.arm.inside.end(),
                                            [&](const auto& i) { return i.first == e.name; });
            CHECK(e.resolved.source == (inside ? HandleSource::None : HandleSource::DelegateExact));
        }
        const Alignment alignment = alignRuntimeWithCapture(events, capture.value());
        std::map<std::string, std::string> compared; // the capture's node → the TOSA tensor compared with it
        for (const auto& p : alignment.pairs)
            if (p.runtime && p.runtime->event && p.aot.record)
                compared[p.aot.record->ops.front()] = p.runtime->event->name;
        // Each delegated node (or group, compared at its last row) is compared with
        // the last TOSA op lowered from it.
        CHECK(compared[session == "arm_tosa_int8" ? "relu" : "conv2d"] == "tosa_transpose_default_1");
        CHECK(compared["linear"] == "tosa_reshape_default_1");
    }
}

TEST_CASE("a folder with a TOSA run opens as a session: every row compared, the groups said", "[arm]") {
    const auto open = [](const std::string& session, const std::string& capture = {}) {
        std::vector<Error> errors;
        const SessionInputs inputs = sessionInputsFromPaths({kData + "/" + session}, errors);
        REQUIRE(errors.empty());
        SessionOptions options;
        if (!capture.empty())
            options.capture = kData + "/" + session + "/" + capture;
        auto s = loadSession(inputs, options);
        REQUIRE(s);
        if (!s->errors.empty())
            FAIL(s->errors.front().describe());
        REQUIRE(s->comparison);
        return s;
    };
    const auto snrs = [](const Session& s) {
        std::map<std::string, double> out; // the row's first op → its SNR
        for (const auto& row : s.comparison->rows) {
            INFO(row.id().aot_ops.front() << ": " << row.reason);
            CHECK(row.status == RowStatus::Ok);
            // ExecuTorch's Inspector cannot read a TOSA run: no number is its.
            CHECK_FALSE(row.in_executorch);
            REQUIRE(row.gaps.size() == 1);
            out[row.id().aot_ops.front()] = row.gaps[0].snr;
        }
        return out;
    };
    // The run is the ETDump and its own debug buffer; nothing is missing.
    const auto fp = open("arm_tosa_fp32");
    CHECK(fp->missing.empty());
    CHECK(fp->etdump_file == fp->debug_buffer_file);
    CHECK_THAT(fp->etdump_file->path(), Catch::EndsWith("tosa_run.safetensors"));
    // FP: the reference model computes in float32 as torch does: rounding only.
    for (const auto& [op, snr] : snrs(*fp))
        CHECK(snr > 100);
    CHECK(snrs(*fp).size() == 3); // conv2d; relu and flatten as one; linear
    REQUIRE(fp->comparison->notes.size() == 2);
    CHECK_THAT(fp->comparison->notes[0], Catch::Contains("relu, flatten: compared as one"));
    // One delegate, the program's own input into it and its output out: no CPU op.
    CHECK_THAT(fp->comparison->notes[1],
               Catch::Contains("1 TOSABackend delegate; 0 ops on the CPU") &&
                   Catch::Contains("input 0 from the program's input: float32 / float32") &&
                   Catch::Contains("to the program's output: float32 / float32"));
    // INT against the fake-quantised program it was lowered from: the same integers.
    const auto int8 = open("arm_tosa_int8", "capture.gscap.safetensors");
    for (const auto& [op, snr] : snrs(*int8))
        CHECK(snr > 100);
    // The program's output as it ran (outputs.safetensors) is compared too.
    for (const auto* s : {fp.get(), int8.get()}) {
        REQUIRE(s->comparison->outputs.size() == 1);
        CHECK(s->comparison->outputs[0].status == RowStatus::Ok);
    }
    // INT against the float model: the quantisation gap, which the fake-quantised
    // reference above explains (the integers are the program's own).
    const auto gap = open("arm_tosa_int8", "capture_float.gscap.safetensors");
    for (const auto& [op, snr] : snrs(*gap)) {
        INFO(op);
        CHECK(snr > 25);
        CHECK(snr < 60);
    }
}

TEST_CASE("channels-last tensors of the reference's very shape are laid back by the graph's layout, "
          "not taken as they are",
          "[arm]") {
    // Between the convolutions the tensors are [1,8,8,8] NHWC, the reference's
    // [1,8,8,8] NCHW shape: only the layout tells them apart.
    const Tied tied = tie("arm_tosa_nhwc_fp32");
    CHECK(tied.arm.unmapped.empty());
    CHECK(tied.arm.runtime_problems.empty());
    auto capture = loadAotCapture(kData + "/arm_tosa_nhwc_fp32/capture.gscap.safetensors");
    REQUIRE(capture);
    std::set<std::string> laid;
    for (const auto& [r, order] : tied.arm.axis_orders) {
        CHECK(order == std::vector<std::int64_t>{0, 2, 3, 1});
        laid.insert(capture.value().records[r].ops.front());
    }
    CHECK(laid == std::set<std::string>{"conv2d", "relu", "conv2d_1", "add"});
    std::vector<Error> errors;
    auto s = loadSession(sessionInputsFromPaths({kData + "/arm_tosa_nhwc_fp32"}, errors));
    REQUIRE(s->comparison);
    REQUIRE(s->comparison->rows.size() == 6);
    for (const auto& row : s->comparison->rows) {
        INFO(row.id().aot_ops.front() << ": " << row.reason);
        REQUIRE(row.status == RowStatus::Ok);
        // Rounding only. Taken as they are, the four channels-last rows are other
        // elements altogether (an SNR near 0 dB).
        CHECK(row.gaps[0].snr > 100);
    }
    REQUIRE(s->comparison->outputs.size() == 1);
    CHECK(s->comparison->outputs[0].status == RowStatus::Ok);
}

TEST_CASE("a TOSA run of another program's delegate calls is refused by name", "[arm][bogus]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("gapscope-arm-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::copy(kData + "/arm_tosa_int8", dir, fs::copy_options::recursive);
    const auto firstError = [&] {
        std::vector<Error> errors;
        auto s = loadSession(sessionInputsFromPaths({dir.string()}, errors));
        REQUIRE(errors.empty());
        REQUIRE_FALSE(s->comparison);
        REQUIRE_FALSE(s->errors.empty());
        return s->errors.front().describe();
    };
    // The Ethos-U program's two calls against this program's one.
    fs::copy_file(kData + "/arm_ethosu_split_int8/tosa_run.safetensors", dir / "tosa_run.safetensors",
                  fs::copy_options::overwrite_existing);
    CHECK_THAT(firstError(), Catch::Contains("etrecord.bin") && Catch::Contains("calls 1 Arm delegates") &&
                                 Catch::Contains("holds 2"));
    // One call, but of the other backend.
    const auto other = withTosaDocument(
        "arm_tosa_int8", [](nlohmann::json& doc) { doc["delegates"][0]["backend"] = kArmEthosUBackend; });
    std::ofstream(dir / "tosa_run.safetensors", std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(other.data()), static_cast<std::streamsize>(other.size()));
    CHECK_THAT(firstError(),
               Catch::Contains("tosa_run.safetensors") && Catch::Contains("delegates[0].backend") &&
                   Catch::Contains("TOSABackend in the ETRecord, EthosUBackend in the TOSA run"));
    fs::remove_all(dir);
}

TEST_CASE("an Ethos-U program's delegate calls are each tied to their rows, and its partition is said",
          "[arm]") {
    // Two EthosUBackend delegates, a sort on the CPU between them; their
    // delegation tags (tag1, tag0) do not follow call order, the run does.
    const TosaProgramRun program = programRunOf("arm_ethosu_split_int8");
    REQUIRE(program.delegates.size() == 2);
    for (const auto& d : program.delegates)
        CHECK(d.backend == kArmEthosUBackend);
    CHECK_THAT(program.delegates[0].tosa_name, Catch::StartsWith("output_tag1_"));
    CHECK_THAT(program.delegates[1].tosa_name, Catch::StartsWith("output_tag0_"));
    // Both graphs name their tensors alike; each op's tensor is its own delegate's.
    REQUIRE(program.delegates[0].find("tosa_conv2d_default"));
    REQUIRE(program.delegates[1].find("tosa_conv2d_default"));
    CHECK(program.delegates[0].find("tosa_conv2d_default")->tensor.begin !=
          program.delegates[1].find("tosa_conv2d_default")->tensor.begin);

    // The partition: what runs on the CPU, and every boundary in int8 on both sides.
    const ArmPartitions p = armPartitions(program);
    CHECK(p.delegates == 2);
    CHECK(p.cpu_ops == std::vector<std::string>{"quantize_per_tensor", "dequantize_per_tensor", "sort",
                                                "quantize_per_tensor", "dequantize_per_tensor"});
    REQUIRE(p.boundaries.size() == 4);
    for (const auto& b : p.boundaries) {
        CHECK(b.program_dtype == "int8");
        CHECK(b.tosa_dtype == "int8");
    }
    CHECK_THAT(p.boundaries[1].cpu_side, Catch::Contains("dequantize_per_tensor"));
    CHECK_THAT(p.boundaries[2].cpu_side, Catch::Contains("quantize_per_tensor_default_2"));
    CHECK(armBoundaryFindings(p).empty());

    // As a session: each delegate's rows, compared against the program it was
    // lowered from, read the same integers (rounding only).
    std::vector<Error> errors;
    SessionOptions options;
    options.capture = kData + "/arm_ethosu_split_int8/capture.gscap.safetensors";
    auto s = loadSession(sessionInputsFromPaths({kData + "/arm_ethosu_split_int8"}, errors), options);
    REQUIRE(errors.empty());
    if (!s->errors.empty())
        FAIL(s->errors.front().describe());
    REQUIRE(s->comparison);
    CHECK(s->comparison->warnings.empty());
    std::set<std::int32_t> instructions;
    std::size_t compared = 0;
    for (const auto& row : s->comparison->rows) {
        INFO(row.id().aot_ops.front() << ": " << row.reason);
        if (row.status != RowStatus::Ok)
            continue;
        ++compared;
        CHECK(row.gaps[0].snr > 100);
        CHECK_FALSE(
            row.in_executorch); // ExecuTorch's Inspector cannot read a TOSA run of Vela's graph either
        instructions.insert(row.instruction_id);
    }
    // conv2d with its relu in the first delegate, conv2d_1 in the second (the
    // sort ran on the CPU, in torch, and left no event: no row of its own).
    CHECK(compared == 2);
    CHECK(instructions == std::set<std::int32_t>{1, 5});
    const std::string notes = [&] {
        std::string all;
        for (const auto& n : s->comparison->notes)
            all += n + "\n";
        return all;
    }();
    CHECK_THAT(notes, Catch::Contains("2 EthosUBackend delegates; 5 ops on the CPU "
                                      "(dequantize_per_tensor ×2, quantize_per_tensor ×2, sort)"));
    CHECK_THAT(notes,
               Catch::Contains("delegate 1 input 0 from quantized_decomposed_quantize_per_tensor_default_2 "
                               "(quantize_per_tensor): int8 / int8"));
}

TEST_CASE("a partition boundary whose dtypes disagree is a warning that names it", "[arm]") {
    namespace fs = std::filesystem;
    // The second delegate's input as if the CPU handed it the sort's float32
    // (its quantize dropped): the NPU would read float bits as int8.
    const auto bytes = withTosaDocument("arm_ethosu_split_int8", [](nlohmann::json& doc) {
        doc["delegates"][1]["call"]["inputs"][0]["dtype"] = "float32";
    });
    auto file = MappedFile::fromBytes("tosa_run.safetensors", bytes.data(), bytes.size());
    auto program = readTosaRun(file);
    REQUIRE(program);
    const ArmPartitions p = armPartitions(program.value());
    REQUIRE(armBoundaryFindings(p).size() == 1);
    CHECK_THAT(armBoundaryFindings(p)[0],
               Catch::Contains("delegate 1's input 0") &&
                   Catch::Contains("float32 in the program but int8") &&
                   Catch::Contains("the CPU hands the NPU float32 where it reads int8") &&
                   Catch::Contains("from quantized_decomposed_quantize_per_tensor_default_2"));
    CHECK_THAT(armPartitionNote(p, kArmEthosUBackend), Catch::Contains("float32 / int8  ← disagree"));

    // And in a session, among the comparison's warnings.
    const fs::path dir = fs::temp_directory_path() / ("gapscope-arm-boundary-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::copy(kData + "/arm_ethosu_split_int8", dir, fs::copy_options::recursive);
    std::ofstream(dir / "tosa_run.safetensors", std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    std::vector<Error> errors;
    SessionOptions options;
    options.capture = (dir / "capture.gscap.safetensors").string();
    auto s = loadSession(sessionInputsFromPaths({dir.string()}, errors), options);
    REQUIRE(s->comparison);
    REQUIRE(s->comparison->warnings.size() == 1);
    CHECK_THAT(s->comparison->warnings[0], Catch::Contains("partition boundary"));
    fs::remove_all(dir);
}
