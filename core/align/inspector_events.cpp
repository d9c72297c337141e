#include "core/align/inspector_events.h"

#include <map>
#include <tuple>

namespace gapscope {

namespace {

// The Inspector's grouping key. Chain indices keep their field types: a
// ProfileEvent's int32 -1 and a DebugEvent's uint64 max are different keys.
using GroupKey = std::tuple<std::int32_t, std::int64_t, std::uint64_t, std::int32_t, std::string, bool>;

struct Group {
    EventKey key;
    std::vector<std::size_t> profiles;
    std::vector<std::size_t> debugs;
};

} // namespace

bool isFrameworkEventName(const std::string& name) {
    return name == "Method::init" || name == "Program::load_method" || name == "Method::execute";
}

std::vector<RuntimeValue> programOutputs(const RunData& run) {
    std::vector<RuntimeValue> out;
    for (const auto& e : run.events)
        if (const auto* d = std::get_if<DebugEvent>(&e); d && d->debug_entry && d->debug_entry->output)
            out.push_back(inflateRuntimeValue(*d->debug_entry));
    return out;
}

std::vector<InspectorEvent> buildInspectorEvents(const RunData& run, const MethodMaps* maps,
                                                 const std::set<std::int64_t>& opGraphHandles) {
    std::map<GroupKey, std::size_t> index;
    std::vector<Group> groups;
    for (std::size_t i = 0; i < run.events.size(); ++i) {
        const auto& e = run.events[i];
        EventKey key;
        GroupKey gk;
        bool isProfile = false;
        if (const auto* p = std::get_if<ProfileEvent>(&e)) {
            key = {p->instruction_id, p->delegate_debug_id_int, p->delegate_debug_id_str};
            gk = {p->instruction_id,
                  p->chain_index,
                  0,
                  p->delegate_debug_id_int,
                  p->delegate_debug_id_str.value_or(""),
                  p->delegate_debug_id_str.has_value()};
            isProfile = true;
        } else if (const auto* d = std::get_if<DebugEvent>(&e)) {
            key = {d->instruction_id, d->delegate_debug_id_int, d->delegate_debug_id_str};
            gk = {d->instruction_id,
                  0,
                  d->chain_index,
                  d->delegate_debug_id_int,
                  d->delegate_debug_id_str.value_or(""),
                  d->delegate_debug_id_str.has_value()};
        } else {
            continue;
        }
        auto [it, fresh] = index.emplace(gk, groups.size());
        if (fresh)
            groups.push_back(Group{key, {}, {}});
        Group& g = groups[it->second];
        if (isProfile) {
            g.profiles.push_back(i);
        } else {
            const auto& d = std::get<DebugEvent>(e);
            if (d.debug_entry && d.debug_entry->output)
                continue; // program outputs are collected separately
            g.debugs.push_back(i);
        }
    }

    std::vector<InspectorEvent> out;
    for (const auto& g : groups) {
        if (g.profiles.empty() && g.debugs.empty())
            continue;
        InspectorEvent base;
        base.instruction_id = g.key.instruction_id;
        base.key = g.key;
        base.delegated = g.key.delegated();
        for (auto i : g.debugs) {
            const auto& d = std::get<DebugEvent>(run.events[i]);
            base.debug_events.push_back(i);
            base.debug_data.push_back(d.debug_entry ? inflateRuntimeValue(*d.debug_entry) : RuntimeValue{});
        }
        if (maps)
            base.num_outputs = maps->numOutputs(g.key.instruction_id);
        base.resolved = resolveDebugHandles(maps, g.key);

        auto finish = [&](InspectorEvent ev, const std::optional<std::string>& profileName) {
            if (ev.delegated)
                ev.name = g.key.delegateId();
            else if (profileName)
                ev.name = *profileName;
            else if (!g.debugs.empty()) {
                const auto& d = std::get<DebugEvent>(run.events[g.debugs.front()]);
                ev.name = d.name.value_or("");
            }
            if (!isFrameworkEventName(ev.name))
                for (auto h : ev.resolved.handles)
                    if (opGraphHandles.count(h)) {
                        ev.has_op_types = true;
                        break;
                    }
            out.push_back(std::move(ev));
        };
        if (g.profiles.empty()) {
            finish(base, std::nullopt);
        } else {
            for (auto p : g.profiles)
                finish(base, std::get<ProfileEvent>(run.events[p]).name);
        }
    }
    return out;
}

} // namespace gapscope
