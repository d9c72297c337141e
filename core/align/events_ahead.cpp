#include "core/align/events_ahead.h"

namespace gapscope {

void EventsAhead::put(const RunData* run, const MethodMaps* maps, std::vector<InspectorEvent> events,
                      std::optional<RuntimeSide> runtime) {
    // Moving a vector keeps its elements where they are, so the runtime side's
    // pointers into the events stay valid through put and take.
    Built built{std::move(events), std::move(runtime)};
    std::lock_guard<std::mutex> lock(m_mutex);
    m_run = run;
    m_maps = maps;
    m_built = std::move(built);
    ++m_put;
}

std::optional<EventsAhead::Built> EventsAhead::take(const RunData* run, const MethodMaps* maps) {
    std::optional<Built> held;
    bool fits = false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        held = std::move(m_built);
        m_built.reset();
        fits = held && m_run == run && m_maps == maps;
        if (fits)
            ++m_taken;
        m_run = nullptr;
        m_maps = nullptr;
    }
    if (!fits)
        held.reset(); // a guess for another plan is not kept (freed outside the lock)
    return held;
}

void EventsAhead::drop() {
    take(nullptr, nullptr); // no events are put for a null run
}

std::size_t EventsAhead::puts() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_put;
}

std::size_t EventsAhead::taken() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_taken;
}

void EventsAhead::countRuntimeTaken() {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_runtimeTaken;
}

std::size_t EventsAhead::runtimeTaken() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_runtimeTaken;
}

} // namespace gapscope
