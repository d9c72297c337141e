#pragma once

#include "core/align/alignment.h"
#include "core/align/inspector_events.h"

#include <mutex>
#include <optional>
#include <vector>

namespace gapscope {

// A run's Inspector events built before the plan asks for them: the sort builds
// them on another core while it reads the captures, when which run and which
// maps the plan will take is known from the ETDump and the ETRecord alone. One
// slot, handed over once: the plan of that run and those maps takes them (and
// marks their op types, which need the capture); any other plan empties the
// slot and builds its own, so a wrong guess costs only the work beside the read.
// Guarded: the sort's side task puts while the opening's thread may take.
//
// The runtime side of the alignment (runtimeSideOf) may come along: computed
// from the events as they were put, marked with a guess of the op graph's
// handles. The plan marks them again with the real ones; only when that changes
// no event (markOpTypes returns 0) and no event is regrouped by name does it use
// this side instead of merging the runtime entries again (issue 29).
class EventsAhead {
public:
    struct Built {
        std::vector<InspectorEvent> events;
        std::optional<RuntimeSide> runtime; // of `events` as put, pointing into them
    };
    void put(const RunData* run, const MethodMaps* maps, std::vector<InspectorEvent> events,
             std::optional<RuntimeSide> runtime = std::nullopt);
    // What was put for exactly this run and these maps, once; nothing otherwise.
    std::optional<Built> take(const RunData* run, const MethodMaps* maps);
    // Empties the slot: what no plan took (the plan failed first, or none was
    // made because no capture could be read).
    void drop();
    // How many times events were put here, and how many plans took them (tests).
    std::size_t puts() const;
    std::size_t taken() const;
    // How many plans used the runtime side that came along (tests), counted by
    // the plan that did.
    void countRuntimeTaken();
    std::size_t runtimeTaken() const;

private:
    mutable std::mutex m_mutex;
    const RunData* m_run = nullptr;
    const MethodMaps* m_maps = nullptr;
    std::optional<Built> m_built;
    std::size_t m_put = 0;
    std::size_t m_taken = 0;
    std::size_t m_runtimeTaken = 0;
};

} // namespace gapscope
