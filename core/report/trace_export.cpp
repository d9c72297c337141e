#include "core/report/trace_export.h"

#include <map>
#include <string>

namespace gapscope {

namespace {

std::string eventName(const ProfileEvent& p) {
    if (p.delegate_debug_id_int != -1)
        return std::to_string(p.delegate_debug_id_int);
    if (p.delegate_debug_id_str && !p.delegate_debug_id_str->empty())
        return *p.delegate_debug_id_str;
    return p.name.value_or("");
}

bool delegated(const ProfileEvent& p) {
    return p.delegate_debug_id_int != -1 || (p.delegate_debug_id_str && !p.delegate_debug_id_str->empty());
}

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
            int tid = 0;
            if (delegated(*p)) {
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
            // A 32-bit clock that wrapped: the duration as the Inspector computes it.
            const std::uint64_t ticks = p->end_time >= p->start_time
                                            ? p->end_time - p->start_time
                                            : (0xFFFFFFFFull - p->start_time) + p->end_time;
            nlohmann::ordered_json e;
            e["name"] = eventName(*p);
            e["cat"] = delegated(*p) ? "delegate" : "executorch";
            e["ph"] = "X";
            e["ts"] = static_cast<double>(p->start_time) / toMicroseconds;
            e["dur"] = static_cast<double>(ticks) / toMicroseconds;
            e["pid"] = pid;
            e["tid"] = tid;
            nlohmann::ordered_json args;
            args["instruction_id"] = p->instruction_id;
            args["chain_index"] = p->chain_index;
            if (delegated(*p))
                args["delegate_debug_identifier"] = eventName(*p);
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
