// ExecuTorch's intermediate-output tap (issue 58), on a real session written by
// ExecuTorch 1.5.1 (tests/data/xnnpack_taps_int8: a CNN tapped before PT2E, one
// XNNPACK delegate, run once with ETDump): each tap is a row nested in the
// delegate it sees inside, its numbers are ExecuTorch's own (tap_compare's SQNR
// of a whole tensor, the runtime's and the reference's statistics), and a
// STATS tap's bounds hold.
#include "core/common/atomic_file.h"
#include "core/compare/findings.h"
#include "core/compare/op_graph.h"
#include "core/etdump/etdump_reader.h"
#include "core/etdump/etdump_writer.h"
#include "core/report/model_explorer_export.h"
#include "core/session/session.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

using namespace gapscope;

namespace {

const std::string kDir = GAPSCOPE_TEST_DATA_DIR "/xnnpack_taps_int8";

std::unique_ptr<Session> open(const std::string& capture) {
    SessionOptions options;
    options.capture = kDir + "/" + capture;
    auto s = loadSession(test::sessionInputsOf(kDir.c_str()), options);
    REQUIRE(s->errors.empty());
    REQUIRE(s->comparison);
    REQUIRE(s->complete);
    return s;
}

nlohmann::json executorchTable(const std::string& name) {
    std::ifstream in(kDir + "/" + name);
    return nlohmann::json::parse(in);
}

const ComparisonRow* tapRow(const Comparison& c, std::size_t outputIndex, const AotCapture& capture) {
    for (const auto& r : c.rows)
        if (r.tap && capture.taps[r.tap->index].output_index == outputIndex)
            return &r;
    return nullptr;
}

double field(const nlohmann::json& row, const std::string& name) {
    // Non-finite values are written as Python's repr: "inf", "-inf", "nan".
    const auto& v = row.at(name);
    if (!v.is_string())
        return v.get<double>();
    const auto text = v.get<std::string>();
    return text == "inf" ? HUGE_VAL : text == "-inf" ? -HUGE_VAL : std::nan("");
}

} // namespace

TEST_CASE("each tap is a row nested in the delegate that computes it, and no program output", "[taps]") {
    const auto s = open("float.gscap.safetensors");
    const Comparison& c = *s->comparison;
    REQUIRE(s->capture->taps.size() == 8);
    std::size_t taps = 0;
    for (const auto& r : c.rows) {
        if (!r.tap)
            continue;
        ++taps;
        const CaptureTap& tap = s->capture->taps[r.tap->index];
        CHECK(r.tap->spec.node_name == tap.node_name);
        CAPTURE(tap.node_name);
        CHECK_FALSE(r.in_executorch);
        CHECK(r.id().aot_ops == std::vector<std::string>{tap.node_name});
        // Inside the one delegate: its row's handles hold the tapped op's.
        REQUIRE(r.inside);
        const auto& holder = c.rows[*r.inside];
        CHECK_FALSE(holder.tap);
        CHECK(holder.id().runtime_ops.front() == "DELEGATE_CALL");
        CHECK(r.instruction_id == holder.instruction_id);
        CHECK(r.status == RowStatus::Ok);
        CHECK(r.measured);
        CHECK(r.bounds == !tap.fullTensor());
    }
    CHECK(taps == 8);
    // The note over a coarse delegate says the taps see inside it (no host twin needed).
    REQUIRE(c.notes.size() == 1);
    CHECK_THAT(c.notes.front(),
               Catch::Contains("8 taps (ExecuTorch's intermediate-output tap) show ops inside"));
    // The table in row order lists each tap under its delegate's outputs.
    for (const auto& r : c.rows)
        if (r.tap) {
            REQUIRE(r.tap->after_row);
            CHECK(c.rows[*r.tap->after_row].instruction_id == r.instruction_id);
            CHECK(*r.tap->after_row >= *r.inside);
        }
    // In the graph, a tapped node keeps its delegate's row and gains its tap's.
    const ExportGraph* graph = referenceGraphFor(*s->etrecord, *s->capture);
    REQUIRE(graph);
    const OpGraph g = buildOpGraph(c, *graph);
    std::size_t tapped = 0;
    for (const auto& node : g.nodes)
        if (node.tap_row) {
            ++tapped;
            CHECK(c.rows[*node.tap_row].tap->spec.node_name == node.name);
            REQUIRE(node.row);
            CHECK_FALSE(c.rows[*node.row].tap);
        }
    CHECK(tapped == 8);
    // ExecuTorch's tap ops are no node: the tapped node shows the tap, and every
    // edge joins two nodes shown.
    std::size_t tapOps = 0;
    for (const auto& n : graph->nodes)
        tapOps += n.target.find("executorch_devtools.tap.Tensor") != std::string::npos;
    CHECK(tapOps == 8);
    CHECK(g.nodes.size() == graph->nodes.size() - tapOps);
    for (const auto& node : g.nodes)
        CHECK(node.op != "Tensor"); // shortTarget of executorch_devtools.tap.Tensor
    for (const auto& [from, to] : g.edges) {
        CHECK(from < g.nodes.size());
        CHECK(to < g.nodes.size());
    }
    // Model Explorer: a STATS tap's bound is an overlay of its own, never an SNR measured.
    const auto exported = modelExplorerNodeData(c, nullptr, *s->etrecord);
    std::map<std::string, std::string> files;
    for (const auto& f : exported.files)
        files[f.file] = f.json;
    REQUIRE(files.count("gapscope-snr-bound.json"));
    REQUIRE(files.count("gapscope-snr.json"));
    const auto bound = nlohmann::json::parse(files["gapscope-snr-bound.json"])["forward"]["results"];
    const auto measured = nlohmann::json::parse(files["gapscope-snr.json"])["forward"]["results"];
    std::set<double> boundSnr, measuredSnr;
    for (const auto& r : c.rows)
        if (const auto v = rowMetric(r, Metric::Snr); v && std::isfinite(*v))
            (r.bounds ? boundSnr : measuredSnr).insert(*v);
    REQUIRE_FALSE(boundSnr.empty());
    CHECK(bound.size() > 0);
    for (const auto& v : bound)
        CHECK(boundSnr.count(v["value"].get<double>()));
    for (const auto& v : measured)
        CHECK(measuredSnr.count(v["value"].get<double>()));
    // Taps are not error introducers: their op names are their delegate's rows' too.
    for (const auto& in : s->introducers) {
        CHECK_FALSE(c.rows[in.row].tap);
        for (const auto p : in.producers)
            CHECK_FALSE(c.rows[p].tap);
    }
    // A tap has no time of its own (its delegate's covers it), and is no row "without a time".
    REQUIRE(s->latency);
    CHECK(s->latency->rowsWithoutTime() == 0);
    for (const auto& r : c.rows)
        if (r.tap)
            CHECK_THAT(s->latency->rows[r.index].reason, Catch::Contains("a tap: its op runs inside row"));
    // The taps are rows, not program outputs: the model's one output is left.
    REQUIRE(c.outputs.size() == 1);
    CHECK(c.outputs.front().index == 0);
    // In execution order, each tap comes after the outputs of its delegate.
    const auto order = executionOrder(c);
    bool seenTap = false;
    for (const auto i : order) {
        if (c.rows[i].tap)
            seenTap = true;
        else
            CHECK_FALSE(seenTap);
    }
}

TEST_CASE(
    "a whole-tensor tap's SQNR is ExecuTorch's tap_compare's, against the float model and the quantised one",
    "[taps][parity]") {
    for (const auto& [capture, table] :
         {std::pair<std::string, std::string>{"float.gscap.safetensors", "executorch_taps_float.json"},
          {"capture.gscap.safetensors", "executorch_taps.json"}}) {
        CAPTURE(capture);
        const auto s = open(capture);
        std::size_t compared = 0;
        for (const auto& theirs : executorchTable(table)) {
            if (theirs.at("reducer_name") != "FULL_TENSOR")
                continue;
            const auto* row =
                tapRow(*s->comparison, theirs.at("output_index").get<std::size_t>(), *s->capture);
            REQUIRE(row);
            REQUIRE(row->gaps.size() == 1);
            const double expected = field(theirs, "sqnr_db");
            const double ours = row->gaps.front().runtime_sqnr;
            CAPTURE(theirs.at("node_name").get<std::string>(), expected, ours);
            if (std::isinf(expected))
                CHECK(std::isinf(ours));
            else
                CHECK(ours == Approx(expected).epsilon(1e-5)); // theirs in float32
            CHECK(row->gaps.front().elements == theirs.at("rt_numel").get<std::uint64_t>());
            ++compared;
        }
        CHECK(compared == 4);
    }
}

TEST_CASE("a STATS tap shows the device's and the reference's statistics as ExecuTorch reads them, and "
          "what they prove",
          "[taps][parity]") {
    const auto s = open("float.gscap.safetensors");
    const auto full = executorchTable("executorch_taps_float.json");
    std::size_t compared = 0;
    for (const auto& theirs : full) {
        if (theirs.at("reducer_name") != "STATS")
            continue;
        const auto* row = tapRow(*s->comparison, theirs.at("output_index").get<std::size_t>(), *s->capture);
        REQUIRE(row);
        REQUIRE(row->tap->fields);
        const TapFields& f = *row->tap->fields;
        REQUIRE(f.names.size() == 13);
        for (std::size_t k = 0; k < f.names.size(); ++k) {
            CAPTURE(f.names[k]);
            const double rt = field(theirs, "rt_" + f.names[k]), aot = field(theirs, "aot_" + f.names[k]);
            CHECK(static_cast<float>(f.runtime[k]) == static_cast<float>(rt)); // bit for bit, as float32
            CHECK(static_cast<float>(f.reference[k]) == static_cast<float>(aot));
        }
        // Quantisation moved these tensors: the statistics prove a gap (a finite SNR bound).
        REQUIRE(row->bounds);
        REQUIRE(row->gaps.size() == 1);
        CHECK(std::isfinite(row->gaps.front().snr));
        ++compared;
    }
    CHECK(compared == 4);
    // Against the quantised program, the device agrees: the bounds prove nothing.
    const auto q = open("capture.gscap.safetensors");
    for (const auto& r : q->comparison->rows)
        if (r.tap && r.bounds)
            CHECK(r.gaps.front().snr > 100);
}

// On a device, an ETDump at program-output level logs no intermediate output:
// the delegate's rows have nothing to compare, and the taps alone see inside
// it. The same run with every other debug event removed (as such a device
// writes it) gives the same tap rows, and the first divergence names an op
// inside the delegate.
TEST_CASE("with only program outputs logged, as a device logs them, the taps alone show inside the delegate",
          "[taps]") {
    namespace fs = std::filesystem;
    auto dump = loadEtdump(kDir + "/run.etdp", kDir + "/run.debug.bin");
    REQUIRE(dump);
    std::size_t dropped = 0;
    for (auto& run : dump.value().runs) {
        auto& events = run.events;
        const auto before = events.size();
        events.erase(std::remove_if(events.begin(), events.end(),
                                    [](const Event& e) {
                                        const auto* d = std::get_if<DebugEvent>(&e);
                                        return d && !(d->debug_entry && d->debug_entry->output);
                                    }),
                     events.end());
        dropped += before - events.size();
    }
    REQUIRE(dropped > 0);
    const fs::path dir = fs::temp_directory_path() / ("gapscope-taps-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto bytes = writeEtdump(dump.value());
    REQUIRE_FALSE(writeFileAtomically((dir / "run.etdp").string(), ByteSpan{bytes.data(), bytes.size()}));

    const auto full = open("float.gscap.safetensors");
    std::vector<Error> errors;
    SessionOptions options;
    options.capture = kDir + "/float.gscap.safetensors";
    const auto device =
        loadSession(sessionInputsFromPaths({(dir / "run.etdp").string(), kDir + "/run.debug.bin",
                                            kDir + "/etrecord.bin", options.capture},
                                           errors),
                    options);
    fs::remove_all(dir);
    REQUIRE(errors.empty());
    REQUIRE(device->comparison);
    std::size_t taps = 0;
    for (const auto& r : device->comparison->rows) {
        if (!r.tap) {
            CHECK(r.gaps.empty()); // nothing logged for the delegate's own outputs
            continue;
        }
        ++taps;
        const auto* same = tapRow(*full->comparison, r.tap->spec.output_index, *full->capture);
        REQUIRE(same);
        REQUIRE(r.gaps.size() == 1);
        CHECK(r.gaps.front().snr == same->gaps.front().snr);
        CHECK(r.gaps.front().max_abs == same->gaps.front().max_abs);
    }
    CHECK(taps == 8);
    const auto first = firstDivergence(*device->comparison, {Metric::Snr, 35.0});
    REQUIRE(first);
    const auto& named = device->comparison->rows[first->row];
    REQUIRE(named.tap);
    CHECK(named.inside);
    CHECK(named.tap->spec.node_name == "linear"); // fc1: 34.5 dB, where conv2d and conv2d_1 are above 36
}
