#include "session_consistency.h"

#include "core/align/debug_handle_resolver.h"
#include "core/align/inspector_events.h"
#include "core/capture/aot_capture.h"
#include "core/common/sha256.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace gapscope::test {

namespace {

// Outside any instruction (chain -1) or named as one of the runtime's own scopes.
bool isFramework(const ProfileEvent& p) {
    return p.chain_index == -1 || (p.name && isFrameworkEventName(*p.name));
}

bool isProgramOutput(const DebugEvent& d) {
    return d.debug_entry && d.debug_entry->output;
}

std::vector<std::vector<std::int64_t>> shapesOf(const Value& v) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& t : v.tensors)
        out.push_back(t.sizes);
    return out;
}

} // namespace

void checkSessionConsistency(const std::string& dir) {
    INFO("session " << dir);
    auto dump = loadEtdump(dir + "/run.etdp", dir + "/run.debug.bin");
    if (!dump)
        FAIL(dump.error().describe());
    auto record = loadEtRecord(dir + "/etrecord.bin");
    if (!record)
        FAIL(record.error().describe());
    auto capture = loadAotCapture(dir + "/capture.gscap.safetensors");
    if (!capture)
        FAIL(capture.error().describe());

    CHECK(dump.value().warnings.empty());
    const auto* graph = record.value().edgeProgram("forward");
    REQUIRE(graph);
    const auto handles = graph->allDebugHandles();
    const std::set<std::int64_t> graphHandles(handles.begin(), handles.end());
    REQUIRE_FALSE(graphHandles.empty());
    const auto* maps = record.value().maps("forward");
    REQUIRE(maps);
    CHECK(record.value().has_representative_inputs);

    // Every runtime event that belongs to an instruction resolves into the graph.
    REQUIRE_FALSE(dump.value().runs.empty());
    std::map<std::int32_t, std::vector<const DebugEvent*>> byInstruction;
    std::size_t resolvedEvents = 0, opaqueEvents = 0;
    for (const auto& run : dump.value().runs) {
        for (const auto& e : run.events) {
            EventKey key;
            if (const auto* p = std::get_if<ProfileEvent>(&e)) {
                if (isFramework(*p))
                    continue;
                key = {p->instruction_id, p->delegate_debug_id_int, p->delegate_debug_id_str};
            } else if (const auto* d = std::get_if<DebugEvent>(&e)) {
                if (isProgramOutput(*d))
                    continue;
                key = {d->instruction_id, d->delegate_debug_id_int, d->delegate_debug_id_str};
                if (!key.delegated())
                    byInstruction[d->instruction_id].push_back(d);
            } else {
                continue;
            }
            // A backend that publishes no delegate-internal mapping (XNNPACK's per-op
            // profiling events) leaves its events opaque, as in ExecuTorch: they
            // belong to their DELEGATE_CALL's instruction, which must resolve.
            const auto delegate = maps->delegate_map.find(key.instruction_id);
            if (key.delegated() && delegate != maps->delegate_map.end() &&
                delegate->second.identifiers.empty()) {
                CHECK(maps->debug_handle_map.count(key.instruction_id) == 1);
                ++opaqueEvents;
                continue;
            }
            const auto r = resolveDebugHandles(maps, key);
            INFO("instruction " << key.instruction_id << " delegate id " << key.delegateId() << ": "
                                << r.reason);
            REQUIRE_FALSE(r.handles.empty());
            for (auto h : r.handles)
                CHECK(graphHandles.count(h) == 1);
            ++resolvedEvents;
        }
    }
    CHECK(resolvedEvents > 0);
    WARN(dir << ": " << resolvedEvents << " runtime events resolved, " << opaqueEvents
             << " opaque delegate-internal events");

    // The capture names the ETRecord it was made from.
    const auto& c = capture.value();
    auto etrecordBytes = MappedFile::open(dir + "/etrecord.bin");
    REQUIRE(etrecordBytes);
    CHECK(c.etrecord_sha256 == std::optional<std::string>(sha256Hex(etrecordBytes.value()->bytes())));
    // A capture from the exporter since it records the ETRecord's table of
    // contents: Python's zipfile and libzip give one digest (the committed demo
    // predates the field and is checked by the file's digest alone).
    if (c.etrecord_entries_sha256)
        CHECK(*c.etrecord_entries_sha256 == record.value().entries_sha256);

    // Every capture record's handles exist in the graph.
    REQUIRE_FALSE(c.records.empty());
    std::map<std::int64_t, const CaptureRecord*> byLastHandle;
    for (const auto& r : c.records) {
        for (auto h : r.debug_handle)
            CHECK(graphHandles.count(h) == 1);
        if (r.debug_handle.size() == 1)
            byLastHandle[r.debug_handle[0]] = &r;
        for (const auto& v : r.outputs)
            if (v.kind == CaptureValue::Kind::Tensor)
                CHECK(c.tensor(v));
    }

    // Shapes agree where ExecuTorch compares: a runtime instruction's outputs (the
    // last N logged arguments of a delegate call) against the reference output of
    // the last handle of its group.
    std::size_t compared = 0;
    for (const auto& [instr, events] : byInstruction) {
        auto handlesIt = maps->debug_handle_map.find(instr);
        REQUIRE(handlesIt != maps->debug_handle_map.end());
        auto aot = byLastHandle.find(handlesIt->second.handles.back());
        if (aot == byLastHandle.end())
            continue;
        const bool delegateCall = maps->delegate_map.count(instr) == 1;
        const auto n = static_cast<std::size_t>(delegateCall ? maps->numOutputs(instr) : events.size());
        REQUIRE(events.size() >= n);
        std::vector<std::vector<std::int64_t>> runtimeShapes;
        for (std::size_t i = events.size() - n; i < events.size(); ++i)
            for (const auto& s : shapesOf(*events[i]->debug_entry))
                runtimeShapes.push_back(s);
        std::vector<std::vector<std::int64_t>> aotShapes;
        for (const auto& v : aot->second->outputs)
            if (const auto* t = c.tensor(v))
                aotShapes.push_back(t->shape);
        INFO("instruction " << instr << " vs record " << aot->second->ops.front());
        if (aot->second->sequence) {
            CHECK(runtimeShapes == aotShapes);
        } else {
            REQUIRE(aotShapes.size() == 1);
            // One runtime output of the reference's shape (native_layer_norm logs three).
            CHECK(std::count(runtimeShapes.begin(), runtimeShapes.end(), aotShapes[0]) >= 1);
        }
        ++compared;
    }
    CHECK(compared > 0);

    // ExecuTorch's own gap tables are there, one row list per metric.
    for (const char* metric : {"mse", "l1", "snr"}) {
        std::ifstream in(dir + "/executorch_gap_" + metric + ".json");
        REQUIRE(in.good());
        const auto rows = nlohmann::json::parse(in);
        REQUIRE(rows.is_array());
        CHECK_FALSE(rows.empty());
        for (const auto& row : rows)
            for (const auto& h : row.at("aot_debug_handle"))
                CHECK(graphHandles.count(h.get<std::int64_t>()) == 1);
    }
}

} // namespace gapscope::test
