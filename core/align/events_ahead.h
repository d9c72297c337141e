#pragma once

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
class EventsAhead {
public:
    void put(const RunData* run, const MethodMaps* maps, std::vector<InspectorEvent> events);
    // The events put for exactly this run and these maps, once; nothing otherwise.
    std::optional<std::vector<InspectorEvent>> take(const RunData* run, const MethodMaps* maps);
    // Empties the slot: what no plan took (the plan failed first, or none was
    // made because no capture could be read).
    void drop();
    // How many times events were put here, and how many plans took them (tests).
    std::size_t puts() const;
    std::size_t taken() const;

private:
    mutable std::mutex m_mutex;
    const RunData* m_run = nullptr;
    const MethodMaps* m_maps = nullptr;
    std::optional<std::vector<InspectorEvent>> m_events;
    std::size_t m_put = 0;
    std::size_t m_taken = 0;
};

} // namespace gapscope
