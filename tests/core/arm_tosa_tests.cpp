// Issue 61: the Arm backend's debug map (debug.json) and the TOSA reference
// model's run (tosa_run.safetensors), read from sessions ExecuTorch's Arm
// backend and tosa-tools wrote (tests/data/arm_tosa_*), and every way either
// can be bogus, each refused with the field it names.
#include "core/align/alignment.h"
#include "core/align/debug_handle_resolver.h"
#include "core/align/inspector_events.h"
#include "core/backends/arm_debug_map.h"
#include "core/backends/arm_delegate_map.h"
#include "core/backends/arm_run_events.h"
#include "core/backends/tosa_run.h"
#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_writer.h"
#include "core/etrecord/etrecord_reader.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace gapscope;

namespace {

const std::string kData = GAPSCOPE_TEST_DATA_DIR;

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

ArmDebugMap debugMapOf(const std::string& session) {
    const std::string path = kData + "/" + session + "/tosa/debug.json";
    auto map = readArmDebugMap(slurp(path), path);
    REQUIRE(map);
    return map.value();
}

TosaRun runOf(const std::string& session) {
    auto file = MappedFile::open(kData + "/" + session + "/tosa_run.safetensors");
    REQUIRE(file);
    auto run = readTosaRun(file.value());
    if (!run)
        FAIL(run.error().describe());
    return std::move(run.value());
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

std::string debugRefusal(const std::string& text) {
    const auto map = readArmDebugMap(text, "debug.json");
    REQUIRE_FALSE(map);
    return map.error().describe();
}

} // namespace

TEST_CASE("the Arm backend's debug map names each TOSA op's output and the node it was lowered from",
          "[arm]") {
    const ArmDebugMap map = debugMapOf("arm_tosa_int8");
    std::vector<std::string> ops, origins;
    for (const auto& e : map.events) {
        ops.push_back(e.tosa_op);
        origins.push_back(e.origin());
        CHECK(e.event_id == static_cast<std::int64_t>(&e - map.events.data()));
        CHECK_FALSE(e.stack_trace.empty());
    }
    // INT: the ReLU is folded into the convolution's RESCALE (no op names it);
    // a linear is a 1x1 CONV2D between RESHAPEs.
    CHECK(ops == std::vector<std::string>{"TRANSPOSE", "CONV2D", "RESCALE", "TRANSPOSE", "RESHAPE", "CONV2D",
                                          "RESCALE", "RESHAPE"});
    CHECK(origins == std::vector<std::string>{"conv2d", "conv2d", "conv2d", "conv2d", "flatten", "linear",
                                              "linear", "linear"});
    // The trace runs from the node as lowered back to the exported one, each name once.
    CHECK(map.events[0].trace == std::vector<std::string>{"convolution", "conv2d"});
    // FP: the ReLU is a CLAMP, moved after the flatten's RESHAPE.
    const ArmDebugMap fp = debugMapOf("arm_tosa_fp32");
    const auto clamp = std::find_if(fp.events.begin(), fp.events.end(),
                                    [](const ArmDebugEvent& e) { return e.tosa_op == "CLAMP"; });
    REQUIRE(clamp != fp.events.end());
    CHECK(clamp->origin() == "relu");
}

TEST_CASE("a TOSA run holds every op the debug map names, and each origin is a row of the AOT capture",
          "[arm]") {
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
        CHECK(run.debug_json_name == "debug.json");
        CHECK(run.tosa_name.find("delegate 0") == 0);
        auto capture = loadAotCapture(kData + "/" + session + "/capture.gscap.safetensors");
        REQUIRE(capture);
        for (const auto& e : map.events) {
            INFO(e.tosa_tensor);
            CHECK(recordOf(capture.value(), e.origin()) != nullptr);
        }
    }
}

TEST_CASE("the Arm delegate map ties each TOSA tensor to its node's handle, and ExecuTorch's resolver "
          "finds each exactly",
          "[arm]") {
    for (const std::string session : {"arm_tosa_int8", "arm_tosa_fp32"}) {
        INFO(session);
        const ArmDebugMap debug = debugMapOf(session);
        auto capture = loadAotCapture(kData + "/" + session + "/capture.gscap.safetensors");
        REQUIRE(capture);
        const ArmDelegateMap arm = armDelegateMap(debug, capture.value());
        CHECK(arm.unmapped.empty());
        REQUIRE(arm.mapping.identifiers.size() + arm.inside.size() == debug.events.size());
        // As ExecuTorch's Inspector resolves a delegate's string ids (the substring
        // rule included), on the delegate call's instruction of the ETRecord.
        MethodMaps maps;
        maps.debug_handle_map[1] = InstructionHandles{{1, 2, 3, 4, 5, 6, 7, 8, 9}, true};
        maps.delegate_map[1] = arm.mapping;
        std::set<std::string> mappedOrigins;
        for (const auto& e : debug.events) {
            INFO(e.tosa_tensor);
            EventKey key;
            key.instruction_id = 1;
            key.delegate_debug_id_str = e.tosa_tensor;
            const ResolvedHandles resolved = resolveDebugHandles(&maps, key);
            const bool inside = std::any_of(arm.inside.begin(), arm.inside.end(),
                                            [&](const auto& i) { return i.first == e.tosa_tensor; });
            if (inside) { // an op before its node's last: no handle of its own
                CHECK(resolved.source == HandleSource::None);
                continue;
            }
            CHECK(mappedOrigins.insert(e.origin()).second); // one op a node
            CHECK(resolved.source == HandleSource::DelegateExact);
            CHECK(resolved.handles == recordOf(capture.value(), e.origin())->debug_handle);
            CHECK(resolved.backend == kArmTosaBackend);
        }
        // Each node's output is its last op: the convolution's TRANSPOSE back to
        // NCHW, the linear's RESHAPE after its 1x1 CONV2D.
        std::map<std::string, std::string> outputOf;
        for (const auto& [tensor, handles] : arm.mapping.identifiers)
            for (const auto& e : debug.events)
                if (e.tosa_tensor == tensor)
                    outputOf[e.origin()] = tensor;
        CHECK(outputOf["conv2d"] == "tosa_transpose_default_1");
        CHECK(outputOf["linear"] == "tosa_reshape_default_1");
    }
    // One TOSA name inside another ("t" in "t_1", as tosa_transpose_default in
    // tosa_transpose_default_1) of two nodes: the exact key wins, whatever the order.
    ArmDebugMap two;
    for (const auto& [tensor, origin] : {std::pair<std::string, std::string>{"t_1", "b"}, {"t", "a"}}) {
        ArmDebugEvent e;
        e.tosa_tensor = tensor;
        e.trace = {origin};
        two.events.push_back(e);
    }
    AotCapture capture;
    capture.records.push_back(CaptureRecord{{4}, {"a"}, {}, false, {}, {}, std::nullopt, std::nullopt});
    capture.records.push_back(CaptureRecord{{5}, {"b"}, {}, false, {}, {}, std::nullopt, std::nullopt});
    capture.records.push_back(CaptureRecord{{6}, {"c", "c"}, {}, false, {}, {}, std::nullopt, std::nullopt});
    capture.records.push_back(CaptureRecord{{7}, {"c"}, {}, false, {}, {}, std::nullopt, std::nullopt});
    const ArmDelegateMap arm = armDelegateMap(two, capture);
    MethodMaps maps;
    maps.delegate_map[1] = arm.mapping;
    maps.debug_handle_map[1] = InstructionHandles{{4, 5}, true};
    EventKey key;
    key.instruction_id = 1;
    key.delegate_debug_id_str = "t_1";
    CHECK(resolveDebugHandles(&maps, key).handles == std::vector<std::int64_t>{5});
    // An origin no row names, or two rows name, is left out, with why.
    ArmDebugEvent lost;
    lost.tosa_tensor = "u";
    lost.trace = {"nowhere"};
    ArmDebugEvent twice;
    twice.tosa_tensor = "v";
    twice.trace = {"c"};
    two.events = {lost, twice};
    const ArmDelegateMap partial = armDelegateMap(two, capture);
    CHECK(partial.mapping.identifiers.empty());
    CHECK(partial.inside.empty());
    REQUIRE(partial.unmapped.size() == 2);
    CHECK_THAT(partial.unmapped[0].second, Catch::Contains("'nowhere' is no op"));
    CHECK_THAT(partial.unmapped[1].second, Catch::Contains("2 of the capture's rows"));
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
    const std::string good = slurp(kData + "/arm_tosa_int8/tosa/debug.json");
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
    // The schema's note where no trace was kept is no error: the origin is the node itself.
    nlohmann::json noted = entries;
    noted[0]["torch_info"]["node_trace"] = "No node trace available.";
    const auto read = readArmDebugMap(noted.dump(), "debug.json");
    REQUIRE(read);
    CHECK(read.value().events[0].trace.empty());
    CHECK(read.value().events[0].origin() == read.value().events[0].aten_node);
}

TEST_CASE("Bogus TOSA runs are refused with the field they fail at", "[arm][bogus]") {
    const auto document = [] {
        return nlohmann::json{{"format", "gapscope.tosa_run"},
                              {"version", 1},
                              {"tosa_file", {{"name", "g.tosa"}, {"sha256", "00"}}},
                              {"graph_inputs", {"x"}},
                              {"graph_outputs", {"y"}},
                              {"ops",
                               {{{"index", 0},
                                 {"op", "CLAMP"},
                                 {"output", "y"},
                                 {"dtype", "INT8"},
                                 {"shape", {2, 2}},
                                 {"inputs", {"x"}}}}}};
    };
    const auto refusal = [](const nlohmann::json& doc, bool withMetadata = true,
                            ScalarType yType = ScalarType::Char) -> std::string {
        SafetensorsWriter w;
        REQUIRE_FALSE(w.add("x", ScalarType::Char, {2, 2}, std::vector<std::uint8_t>(4, 1)));
        REQUIRE_FALSE(
            w.add("y", yType, {2, 2}, std::vector<std::uint8_t>(4 * (yType == ScalarType::Char ? 1 : 4), 2)));
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
    doc["version"] = 2;
    CHECK_THAT(refusal(doc), Catch::Contains("version") && Catch::Contains("only version 1"));
    doc = document();
    doc.erase("tosa_file");
    CHECK_THAT(refusal(doc), Catch::Contains("tosa_file") && Catch::Contains("missing"));
    doc = document();
    doc["ops"][0]["output"] = "z";
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].output") && Catch::Contains("names no tensor"));
    doc = document();
    doc["ops"][0]["dtype"] = "INT48";
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].dtype") && Catch::Contains("INT48"));
    CHECK_THAT(refusal(document(), true, ScalarType::Int),
               Catch::Contains("ops[0].dtype") && Catch::Contains("stored as I32"));
    doc = document();
    doc["ops"][0]["shape"] = {4};
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].shape") && Catch::Contains("another shape"));
    doc = document();
    doc["ops"][0]["shape"][0] = -2;
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].shape[0]"));
    doc = document();
    doc["ops"].push_back(doc["ops"][0]);
    CHECK_THAT(refusal(doc), Catch::Contains("ops[1].output") && Catch::Contains("another op's output"));
    doc = document();
    doc["graph_outputs"] = {"x"};
    CHECK_THAT(refusal(doc), Catch::Contains("graph_outputs[0]") && Catch::Contains("no op's output"));
    doc = document();
    doc["graph_inputs"] = {"w"};
    CHECK_THAT(refusal(doc), Catch::Contains("graph_inputs[0]"));
    doc = document();
    doc["ops"][0]["index"] = -1;
    CHECK_THAT(refusal(doc), Catch::Contains("ops[0].index"));
    CHECK_THAT(refusal(nlohmann::json::array()), Catch::Contains("not an object"));
}

TEST_CASE("a TOSA run as the delegate's events aligns with the AOT capture by ExecuTorch's rules", "[arm]") {
    for (const std::string session : {"arm_tosa_int8", "arm_tosa_fp32"}) {
        INFO(session);
        const TosaRun run = runOf(session);
        auto etrecord = loadEtRecord(kData + "/" + session + "/etrecord.bin");
        REQUIRE(etrecord);
        MethodMaps maps = *etrecord.value().maps();
        // The ETRecord's own entry for the delegate: TOSABackend, no map.
        REQUIRE(maps.delegate_map.size() == 1);
        const std::int64_t instruction = maps.delegate_map.begin()->first;
        CHECK(maps.delegate_map.begin()->second.backend == kArmTosaBackend);
        CHECK(maps.delegate_map.begin()->second.identifiers.empty());
        auto capture = loadAotCapture(kData + "/" + session + "/capture.gscap.safetensors");
        REQUIRE(capture);
        const ArmDelegateMap arm = armDelegateMap(debugMapOf(session), capture.value());
        maps.delegate_map[instruction] = arm.mapping;

        const EtDump dump = armRunEtDump(run, static_cast<std::int32_t>(instruction));
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
            const bool inside = std::any_of(arm.inside.begin(), arm.inside.end(),
                                            [&](const auto& i) { return i.first == e.name; });
            CHECK(e.resolved.source == (inside ? HandleSource::None : HandleSource::DelegateExact));
        }
        const Alignment alignment = alignRuntimeWithCapture(events, capture.value());
        std::map<std::string, std::string> compared; // the capture's node → the TOSA tensor compared with it
        for (const auto& p : alignment.pairs)
            if (p.runtime && p.runtime->event && p.aot.record)
                compared[p.aot.record->ops.front()] = p.runtime->event->name;
        // Each delegated node is compared with the last TOSA op lowered from it.
        CHECK(compared["conv2d"] == "tosa_transpose_default_1");
        CHECK(compared["linear"] == "tosa_reshape_default_1");
        CHECK(compared.count("flatten") == 1);
    }
}
