#include "core/align/inspector_events.h"

#include "core/common/flat_index.h"
#include "core/common/hash_mix.h"
#include "core/common/parallel.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <string_view>
#include <tuple>

namespace gapscope {

namespace {

// The Inspector's grouping key. Chain indices keep their field types: a
// ProfileEvent's int32 -1 and a DebugEvent's uint64 max are different keys.
// The string id is a view into the run's event, which outlives the index: no
// copy per event.
using GroupKey = std::tuple<std::int32_t, std::int64_t, std::uint64_t, std::int32_t, std::string_view, bool>;

// Hashed, not ordered: groups keep their first event's order in `groups`, and
// a std::map of 100,000 such keys (a string each) was a tenth of opening a
// 50,000-op session.
struct GroupKeyHash {
    std::size_t operator()(const GroupKey& k) const {
        std::size_t h = std::hash<std::string_view>()(std::get<4>(k));
        const auto mix = [&](std::uint64_t v) { hashMix(h, std::hash<std::uint64_t>()(v)); };
        mix(static_cast<std::uint32_t>(std::get<0>(k)));
        mix(static_cast<std::uint64_t>(std::get<1>(k)));
        mix(std::get<2>(k));
        mix(static_cast<std::uint32_t>(std::get<3>(k)));
        mix(std::get<5>(k));
        return h;
    }
};

// A group's events, in event order, as lists threaded through one array of
// "next" indices (EventLists): no vector per group. Opening a 50,000-op session
// made 100,000 groups, and their small vectors were a tenth of building them.
constexpr std::size_t kNone = static_cast<std::size_t>(-1);
struct EventList {
    std::size_t first = kNone, last = kNone, size = 0;
    bool empty() const { return size == 0; }
};
// The group's EventKey is made when the group is built (on every core), from
// its first event's fields: not copied here, once per event.
struct Group {
    GroupKey gk;
    std::int32_t delegate_debug_id_int = -1;
    const std::optional<std::string>* delegate_debug_id_str = nullptr;
    EventList profiles, debugs;
    EventKey key() const { return {std::get<0>(gk), delegate_debug_id_int, *delegate_debug_id_str}; }
};

struct EventLists {
    std::vector<std::size_t> next;
    void append(EventList& list, std::size_t i) {
        (list.empty() ? list.first : next[list.last]) = i;
        list.last = i;
        ++list.size;
    }
    template <typename F> void forEach(const EventList& list, F f) const {
        for (std::size_t i = list.first; i != kNone; i = next[i])
            f(i);
    }
};

} // namespace

bool isFrameworkEventName(const std::string& name) {
    // As a view: compared by size first, where std::string against a C string
    // compares characters (every event is asked, twice per opening).
    const std::string_view n(name);
    return n == "Method::init" || n == "Program::load_method" || n == "Method::execute";
}

std::vector<RuntimeValue> programOutputs(const RunData& run) {
    std::vector<RuntimeValue> out;
    for (const auto& e : run.events)
        if (const auto* d = std::get_if<DebugEvent>(&e); d && d->debug_entry && d->debug_entry->output)
            out.push_back(inflateRuntimeValue(*d->debug_entry));
    return out;
}

std::vector<RuntimeValue> flatProgramOutputs(const RunData& run) {
    std::vector<RuntimeValue> flat;
    for (auto& v : programOutputs(run)) {
        if (v.isSequence())
            flat.insert(flat.end(), v.items.begin(), v.items.end());
        else
            flat.push_back(std::move(v));
    }
    return flat;
}

OpHandles::OpHandles(std::vector<std::int64_t> handles) {
    if (handles.empty())
        return;
    const auto [lo, hi] = std::minmax_element(handles.begin(), handles.end());
    // The span as unsigned: hi − lo may not fit a signed 64-bit value.
    const auto span = static_cast<std::uint64_t>(*hi) - static_cast<std::uint64_t>(*lo);
    if (span < 64 * static_cast<std::uint64_t>(handles.size()) + 4096) {
        // No sort of 50,000 handles on opening, no bisection per event.
        m_min = *lo;
        m_bits.assign(static_cast<std::size_t>(span) + 1, false);
        for (const auto h : handles)
            m_bits[static_cast<std::size_t>(static_cast<std::uint64_t>(h) -
                                            static_cast<std::uint64_t>(m_min))] = true;
        return;
    }
    m_sorted = std::move(handles);
    std::sort(m_sorted.begin(), m_sorted.end());
    m_sorted.erase(std::unique(m_sorted.begin(), m_sorted.end()), m_sorted.end());
}

OpHandles OpHandles::every() {
    OpHandles all;
    all.m_every = true;
    return all;
}

bool OpHandles::contains(std::int64_t handle) const {
    if (m_every)
        return true;
    if (!m_bits.empty()) {
        const auto k = static_cast<std::uint64_t>(handle) - static_cast<std::uint64_t>(m_min);
        return handle >= m_min && k < m_bits.size() && m_bits[static_cast<std::size_t>(k)];
    }
    return std::binary_search(m_sorted.begin(), m_sorted.end(), handle);
}

std::vector<InspectorEvent> buildInspectorEvents(const RunData& run, const MethodMaps* maps,
                                                 const OpHandles& opGraphHandles) {
    auto events = buildInspectorEvents(run, maps);
    markOpTypes(events, opGraphHandles);
    return events;
}

std::size_t markOpTypes(std::vector<InspectorEvent>& events, const OpHandles& opGraphHandles) {
    std::atomic<std::size_t> changed{0};
    parallelForRanges(events.size(), 1024, [&](std::size_t begin, std::size_t end) {
        std::size_t here = 0;
        for (std::size_t i = begin; i < end; ++i) {
            InspectorEvent& ev = events[i];
            bool op = false;
            if (!isFrameworkEventName(ev.name))
                for (auto h : ev.resolved.handles)
                    if (opGraphHandles.contains(h)) {
                        op = true;
                        break;
                    }
            here += op != ev.has_op_types;
            ev.has_op_types = op;
        }
        changed.fetch_add(here, std::memory_order_relaxed);
    });
    return changed.load();
}

std::vector<InspectorEvent> buildInspectorEvents(const RunData& run, const MethodMaps* maps) {
    // Groups by key, in one array of group numbers (FlatIndex): a node per
    // group (100,000 of them for a 50,000-op session) cost more to allocate and
    // free than the lookups. Sized for every event being its own group.
    FlatIndex<NoKey> index(run.events.size());
    std::vector<Group> groups;
    EventLists lists{std::vector<std::size_t>(run.events.size(), kNone)};
    for (std::size_t i = 0; i < run.events.size(); ++i) {
        const auto& e = run.events[i];
        GroupKey gk;
        const std::optional<std::string>* idStr = nullptr;
        bool isProfile = false;
        if (const auto* p = std::get_if<ProfileEvent>(&e)) {
            idStr = &p->delegate_debug_id_str;
            gk = {p->instruction_id,
                  p->chain_index,
                  0,
                  p->delegate_debug_id_int,
                  p->delegate_debug_id_str ? std::string_view(*p->delegate_debug_id_str) : std::string_view(),
                  p->delegate_debug_id_str.has_value()};
            isProfile = true;
        } else if (const auto* d = std::get_if<DebugEvent>(&e)) {
            idStr = &d->delegate_debug_id_str;
            gk = {d->instruction_id,
                  0,
                  d->chain_index,
                  d->delegate_debug_id_int,
                  d->delegate_debug_id_str ? std::string_view(*d->delegate_debug_id_str) : std::string_view(),
                  d->delegate_debug_id_str.has_value()};
        } else {
            continue;
        }
        std::size_t& at = index.at(NoKey{}, GroupKeyHash()(gk),
                                   [&](const auto& slot) { return groups[slot.value].gk == gk; });
        if (at == index.kNone) {
            at = groups.size();
            groups.push_back(Group{gk, std::get<3>(gk), idStr, {}, {}});
        }
        Group& g = groups[at];
        if (isProfile) {
            lists.append(g.profiles, i);
        } else {
            const auto& d = std::get<DebugEvent>(e);
            if (d.debug_entry && d.debug_entry->output)
                continue; // program outputs are collected separately
            lists.append(g.debugs, i);
        }
    }

    // Each group's events land in their own slots (a group of n profiles makes
    // n events, one of debug events alone makes one), so groups are built on
    // every core, in blocks, and the events keep the groups' order.
    std::vector<std::size_t> firstOut(groups.size() + 1, 0);
    for (std::size_t k = 0; k < groups.size(); ++k) {
        const Group& g = groups[k];
        firstOut[k + 1] = firstOut[k] + (g.debugs.empty() && g.profiles.empty() ? 0
                                         : g.profiles.empty()                   ? 1
                                                                                : g.profiles.size);
    }
    std::vector<InspectorEvent> out(firstOut.back());
    const auto build = [&](const Group& g, std::size_t at) {
        if (g.profiles.empty() && g.debugs.empty())
            return;
        InspectorEvent base;
        base.key = g.key();
        base.instruction_id = base.key.instruction_id;
        base.delegated = base.key.delegated();
        base.debug_events.reserve(g.debugs.size);
        base.debug_data.reserve(g.debugs.size);
        lists.forEach(g.debugs, [&](std::size_t i) {
            const auto& d = std::get<DebugEvent>(run.events[i]);
            base.debug_events.push_back(i);
            base.debug_data.push_back(d.debug_entry ? inflateRuntimeValue(*d.debug_entry) : RuntimeValue{});
        });
        if (maps)
            base.num_outputs = maps->numOutputs(base.key.instruction_id);
        base.resolved = resolveDebugHandles(maps, base.key);

        auto finish = [&](InspectorEvent ev, const std::optional<std::string>& profileName) {
            if (ev.delegated)
                ev.name = ev.key.delegateId();
            else if (profileName)
                ev.name = *profileName;
            else if (!g.debugs.empty()) {
                const auto& d = std::get<DebugEvent>(run.events[g.debugs.first]);
                ev.name = d.name.value_or("");
            }
            out[at++] = std::move(ev);
        };
        if (g.profiles.empty()) {
            finish(std::move(base), std::nullopt);
        } else {
            // The last profile takes the base itself; the others a copy.
            lists.forEach(g.profiles, [&](std::size_t p) {
                if (p != g.profiles.last)
                    finish(base, std::get<ProfileEvent>(run.events[p]).name);
            });
            finish(std::move(base), std::get<ProfileEvent>(run.events[g.profiles.last]).name);
        }
    };
    parallelForRanges(groups.size(), 512, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
            build(groups[k], firstOut[k]);
    });
    return out;
}

} // namespace gapscope
