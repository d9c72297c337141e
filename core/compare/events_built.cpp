#include "core/compare/events_built.h"

#include "core/align/run_methods.h"
#include "core/backends/backend_conventions.h"
#include "core/compare/run_choice.h"

#include <string>
#include <string_view>

namespace gapscope {

namespace {

// The graph a delegate of the method takes its debug handles from, when it is
// another than the edge program (QNN's edge_after_transform) and the ETRecord
// holds it: captures are taken from it (the delegate's capture hint), and the
// plan then counts ops by it.
const ExportGraph* delegatesReferenceGraph(const EtRecord& etrecord, const MethodMaps& maps) {
    for (const auto& entry : maps.delegate_map) {
        const std::string_view graph = backendConventions(entry.second.backend).reference_graph;
        if (graph.empty())
            continue;
        if (const auto it = etrecord.graph_map.find(std::string(graph)); it != etrecord.graph_map.end())
            return &it->second;
    }
    return nullptr;
}

} // namespace

std::optional<PlanKey> planKeyBeforeCapture(const EtDump& dump, const EtRecord* etrecord,
                                            const ComparisonOptions& options) {
    if (dump.runs.empty())
        return std::nullopt;
    // chooseRun: a multi-method program's default run is the first that fits the method.
    if (etrecord && isMultiMethod(*etrecord) && !options.run)
        return std::nullopt;
    PlanKey key;
    if (etrecord && !etrecord->methods.empty()) {
        // planComparison's method: the one asked for, else the capture's, which
        // must be the ETRecord's (its only one here) or nothing is planned.
        std::string method = options.method;
        if (method.empty() && etrecord->methods.size() == 1)
            method = etrecord->methods.begin()->first;
        if (method.empty())
            return std::nullopt;
        key.maps = etrecord->maps(method);
        const ExportGraph* delegates = key.maps ? delegatesReferenceGraph(*etrecord, *key.maps) : nullptr;
        key.likely_graph = delegates ? delegates : etrecord->edgeProgram(method);
    }
    const std::size_t run = options.run ? *options.run : defaultRun(dump);
    if (run >= dump.runs.size())
        return std::nullopt;
    key.run = &dump.runs[run];
    return key;
}

std::optional<EventsBuilt> buildEventsBeforeCapture(const EtDump& dump, const EtRecord* etrecord,
                                                    const ComparisonOptions& options) {
    const auto key = planKeyBeforeCapture(dump, etrecord, options);
    if (!key)
        return std::nullopt;
    EventsBuilt built;
    built.run = key->run;
    built.maps = key->maps;
    built.events = buildInspectorEvents(*key->run, key->maps);
    // Every handle without an op graph: the capture's handles decide, and they
    // are nearly always all of the events'.
    markOpTypes(built.events,
                key->likely_graph ? OpHandles(key->likely_graph->allDebugHandles()) : OpHandles::every());
    built.runtime = runtimeSideOf(built.events);
    return built;
}

} // namespace gapscope
