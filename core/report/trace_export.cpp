#include "core/report/trace_export.h"

#include "core/profile/profile_table.h"

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
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        const RunData& run = dump.runs[r];
        const int pid = static_cast<int>(r) + 1;
        events.push_back(metadata("process_name", pid, 0,
                                  "run " + std::to_string(r) + ": " + run.name.value_or("unnamed")));
        events.push_back(metadata("thread_name", pid, 0, "ExecuTorch (framework and operators)"));
        std::map<std::int32_t, int> delegateTrack; // instruction → tid
        for (const auto& event : run.events) {
            const auto* p = std::get_if<ProfileEvent>(&event);
            if (!p)
                continue;
            const auto delegateId = delegateIdentifier(*p);
            int tid = 0;
            if (delegateId) {
                auto [it, added] =
                    delegateTrack.try_emplace(p->instruction_id, static_cast<int>(delegateTrack.size()) + 1);
                tid = it->second;
                if (added) {
                    std::string backend = "delegate";
                    if (maps)
                        if (const auto d = maps->delegate_map.find(p->instruction_id);
                            d != maps->delegate_map.end())
                            backend = d->second.backend;
                    events.push_back(metadata("thread_name", pid, tid,
                                              backend + ", instruction " + std::to_string(p->instruction_id) +
                                                  " (the delegate's own clock)"));
                }
            }
            bool impossible = false; // the duration as the Inspector computes it, wraparound included
            const double ticks = elapsedTime(p->start_time, p->end_time, impossible);
            nlohmann::ordered_json e;
            e["name"] = delegateId ? *delegateId : p->name.value_or("");
            e["cat"] = delegateId ? "delegate" : "executorch";
            e["ph"] = "X";
            e["ts"] = static_cast<double>(p->start_time) / toMicroseconds;
            e["dur"] = ticks / toMicroseconds;
            e["pid"] = pid;
            e["tid"] = tid;
            nlohmann::ordered_json args;
            args["instruction_id"] = p->instruction_id;
            args["chain_index"] = p->chain_index;
            if (delegateId)
                args["delegate_debug_identifier"] = *delegateId;
            e["args"] = std::move(args);
            events.push_back(std::move(e));
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
