#pragma once

#include "core/align/alignment.h"
#include "core/align/inspector_events.h"
#include "core/compare/comparison_options.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <optional>
#include <vector>

namespace gapscope {

// The run and the maps planComparison takes for `options`, when the ETDump and
// the ETRecord alone decide them: a single-method program, or a run and method
// asked for. Nothing when the capture's method decides (a multi-method
// program's default run; an ETRecord of several methods and no method asked).
struct PlanKey {
    const RunData* run = nullptr;
    const MethodMaps* maps = nullptr;
    // The op graph the plan will most likely count ops by: the graph whose
    // handles a delegate of the method uses (BackendConventions::reference_graph)
    // when the ETRecord holds it, else the method's edge program (the plan takes
    // another graph only when the capture names one). Null without an ETRecord,
    // where the capture's handles decide.
    const ExportGraph* likely_graph = nullptr;
};
std::optional<PlanKey> planKeyBeforeCapture(const EtDump& dump, const EtRecord* etrecord,
                                            const ComparisonOptions& options);

// A run's Inspector events, built before the capture is read: the read stage
// builds them on its second core while the captures are read on the first
// (sortSessionFiles), and hands them to the plan stage as a value
// (openSessionFiles → planComparison), which takes them when they are of its
// run and maps. Issue 57: a value passed from stage to stage, where it was a
// slot of the workspace taken back through a pointer in the options.
//
// The runtime side of the alignment comes along, computed from the events as
// marked with the op graph's handles the plan will most likely take; the plan
// marks them again with the real ones, and uses this side only when that
// changes no event and no event is regrouped by name.
struct EventsBuilt {
    EventsBuilt() = default;
    // Moved, never copied: the runtime side points into the events' storage.
    EventsBuilt(const EventsBuilt&) = delete;
    EventsBuilt& operator=(const EventsBuilt&) = delete;
    EventsBuilt(EventsBuilt&&) = default;
    EventsBuilt& operator=(EventsBuilt&&) = default;

    const RunData* run = nullptr;
    const MethodMaps* maps = nullptr;
    std::vector<InspectorEvent> events;
    std::optional<RuntimeSide> runtime; // of `events` as built, pointing into them
};
// Nothing when the ETDump and the ETRecord do not decide the run (planKeyBeforeCapture).
std::optional<EventsBuilt> buildEventsBeforeCapture(const EtDump& dump, const EtRecord* etrecord,
                                                    const ComparisonOptions& options);

} // namespace gapscope
