#include "core/report/trace_export.h"

#include "core/profile/profile_table.h"

#include <algorithm>
#include <map>
#include <string>

namespace gapscope {

namespace {

nlohmann::ordered_json metadata(const char* what, int pid, int tid, const std::string& name) {
    nlohmann::ordered_json m;
    m["name"] = what;
    m["ph"] = "M";
    m["pid"] = pid;
    m["tid"] = tid;
    m["args"] = {{"name", name}};
    return m;
}

} // namespace

nlohmann::ordered_json traceToJson(const EtDump& dump, const TraceOptions& options) {
    const bool cycles = options.source == TimeScale::Cycles;
    const double toMicroseconds = cycles ? 1.0 : timeScaleFactor(options.source, TimeScale::Us);
    const MethodMaps* maps = options.etrecord ? options.etrecord->maps("forward") : nullptr;
    auto events = nlohmann::ordered_json::array();
    // One process per kind of run (issue 56: each of a decode loop's 65 steps was
    // a process of its own): runs of one name ("Execute") share a process, in
    // time order, each slice saying its run.
    std::map<std::string, int> processOf;
    std::map<int, std::vector<std::size_t>> runsOf;
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        const std::string name = dump.runs[r].name.value_or("unnamed");
        const auto [it, added] = processOf.try_emplace(name, static_cast<int>(processOf.size()) + 1);
        runsOf[it->second].push_back(r);
    }
    struct Track {
        std::string backend;
        std::int32_t instruction = -1;
        std::uint64_t first = UINT64_MAX; // its earliest start, in ticks
    };
    for (const auto& [name, pid] : processOf) {
        const auto& runs = runsOf[pid];
        events.push_back(metadata("process_name", pid, 0,
                                  name + (runs.size() == 1 ? " (run " + std::to_string(runs.front()) + ")"
                                                           : " (" + std::to_string(runs.size()) + " runs, " +
                                                                 std::to_string(runs.front()) + " to " +
                                                                 std::to_string(runs.back()) + ")")));
        events.push_back(metadata("thread_name", pid, 0, "ExecuTorch (framework and operators)"));
        std::map<std::int32_t, int> delegateTrack; // instruction → tid
        std::map<int, Track> tracks;
        std::uint64_t runtimeFirst = UINT64_MAX; // the earliest start of the framework's own events
        for (const std::size_t r : runs) {
            const RunData& run = dump.runs[r];
            // The kernel each operator call runs: the native_call event of its instruction.
            std::map<std::int32_t, std::string> kernelOf;
            for (const auto& event : run.events)
                if (const auto* p = std::get_if<ProfileEvent>(&event);
                    p && p->name && p->name->rfind("native_call_", 0) == 0)
                    kernelOf.try_emplace(p->instruction_id, p->name->substr(12));
            for (const auto& event : run.events) {
                const auto* p = std::get_if<ProfileEvent>(&event);
                if (!p)
                    continue;
                const auto delegateId = delegateIdentifier(*p);
                int tid = 0;
                if (delegateId) {
                    auto [it, added] = delegateTrack.try_emplace(p->instruction_id,
                                                                 static_cast<int>(delegateTrack.size()) + 1);
                    tid = it->second;
                    Track& t = tracks[tid];
                    if (added) {
                        t.backend = "delegate";
                        t.instruction = p->instruction_id;
                        if (maps)
                            if (const auto d = maps->delegate_map.find(p->instruction_id);
                                d != maps->delegate_map.end())
                                t.backend = d->second.backend;
                    }
                    t.first = std::min<std::uint64_t>(t.first, p->start_time);
                } else {
                    runtimeFirst = std::min<std::uint64_t>(runtimeFirst, p->start_time);
                }
                bool impossible = false; // the duration as the Inspector computes it, wraparound included
                const double ticks = elapsedTime(p->start_time, p->end_time, impossible);
                const std::string eventName = p->name.value_or("");
                const auto kernel = kernelOf.find(p->instruction_id);
                nlohmann::ordered_json e;
                // An operator call names its op (issue 56: every slice read OPERATOR_CALL).
                e["name"] = delegateId ? *delegateId
                            : eventName == "OPERATOR_CALL" && kernel != kernelOf.end()
                                ? kernel->second + " (OPERATOR_CALL)"
                                : eventName;
                e["cat"] = delegateId ? "delegate" : "executorch";
                e["ph"] = "X";
                e["ts"] = static_cast<double>(p->start_time) / toMicroseconds;
                e["dur"] = ticks / toMicroseconds;
                e["pid"] = pid;
                e["tid"] = tid;
                nlohmann::ordered_json args;
                args["run"] = r;
                args["instruction_id"] = p->instruction_id;
                args["chain_index"] = p->chain_index;
                if (delegateId)
                    args["delegate_debug_identifier"] = *delegateId;
                if (maps && !delegateId)
                    if (const auto h = maps->debug_handle_map.find(p->instruction_id);
                        h != maps->debug_handle_map.end())
                        args["debug_handles"] = h->second.handles;
                e["args"] = std::move(args);
                events.push_back(std::move(e));
            }
        }
        // A delegate that logs on the runtime's clock (XNNPACK) is said to; one
        // whose times start near 0 (QNN's cycles) has a clock of its own (issue 56:
        // XNNPACK's tracks said "the delegate's own clock").
        for (const auto& [tid, t] : tracks) {
            const bool ownClock = runtimeFirst != UINT64_MAX && t.first < runtimeFirst;
            events.push_back(
                metadata("thread_name", pid, tid,
                         t.backend + ", instruction " + std::to_string(t.instruction) +
                             (ownClock ? " (the delegate's own clock)" : " (the runtime's clock)")));
        }
    }
    nlohmann::ordered_json doc;
    doc["traceEvents"] = std::move(events);
    doc["displayTimeUnit"] = "ns";
    doc["otherData"] = {{"generator", "gapscope"},
                        {"source_time_scale", timeScaleName(options.source)},
                        {"timestamps", cycles ? "cycles" : "microseconds"}};
    return doc;
}

} // namespace gapscope
