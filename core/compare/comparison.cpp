#include "core/compare/comparison.h"

#include "core/align/multi_output_by_name.h"
#include "core/align/op_names_within.h"
#include "core/align/run_methods.h"
#include "core/backends/backend_conventions.h"
#include "core/capture/reference_kind.h"
#include "core/common/parallel.h"
#include "core/common/side_task.h"
#include "core/compare/events_built.h"
#include "core/compare/row_name.h"
#include "core/compare/row_planning.h"
#include "core/compare/run_checks.h"
#include "core/compare/run_choice.h"
#include "core/compare/tap_rows.h"
#include "core/metrics/gap_lanes.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace gapscope {

namespace {

const MethodMaps* methodMaps(const EtRecord* etrecord, const std::string& method) {
    return etrecord ? etrecord->maps(method) : nullptr;
}

} // namespace

namespace {

// What coverage says of the events themselves: those no handle was resolved
// for, and their missing data. It depends on the events alone, so the plan
// lists it on another core while it aligns.
std::vector<CoverageItem> eventCoverage(const std::vector<InspectorEvent>& events, const MethodMaps* maps) {
    std::vector<CoverageItem> items;
    for (const auto& e : events) {
        if (isFrameworkEventName(e.name) || std::string_view(e.name) == "OPERATOR_CALL")
            continue;
        if (e.resolved.handles.empty()) {
            const DelegateMapping* mapping = e.delegated && maps && maps->delegate_map.count(e.instruction_id)
                                                 ? &maps->delegate_map.at(e.instruction_id)
                                                 : nullptr;
            const std::string_view internal =
                mapping ? backendConventions(mapping->backend).internal_tensor_reason : std::string_view();
            if (mapping && mapping->identifiers.empty())
                items.push_back(
                    {CoverageKind::OpaqueDelegateEvent,
                     e.name,
                     {},
                     "backend '" + mapping->backend + "' publishes no delegate-internal debug map"});
            else if (!internal.empty())
                // The delegate maps every op it lowered: a name it left out is a
                // tensor it added itself.
                items.push_back({CoverageKind::DelegateInternal, e.name, {}, std::string(internal)});
            else
                items.push_back({CoverageKind::UnresolvedEvent, e.name, {}, e.resolved.reason});
        }
        for (const auto& v : e.debug_data) {
            auto flag = [&](const Tensor& t) {
                if (t.data == TensorData::Missing || t.data == TensorData::Invalid)
                    items.push_back({CoverageKind::MissingData, e.name, e.resolved.handles, t.problem});
            };
            if (v.isTensor())
                flag(*v.tensor);
            for (const auto& item : v.items)
                if (item.isTensor())
                    flag(*item.tensor);
        }
    }
    return items;
}

// Nothing disappears silently: every reference record and runtime event that is
// not a measured row is listed with the reason. Rebuilt as rows get measured,
// since a row found invalid only then joins the list. `ofEvents` is
// eventCoverage of the comparison's events.
void buildCoverage(Comparison& c, std::vector<CoverageItem> ofEvents) {
    c.coverage.clear();
    for (const auto* r : c.alignment().aot_without_runtime)
        c.coverage.push_back({CoverageKind::AotWithoutRuntime, r->ops.empty() ? "" : r->ops.front(),
                              r->debug_handle, "no runtime event carries these debug handles"});
    for (const auto* r : c.alignment().runtime_without_aot)
        c.coverage.push_back({CoverageKind::RuntimeWithoutAot, r->event->name, r->handles,
                              "the capture has no reference output for these handles"});
    c.coverage.insert(c.coverage.end(), std::make_move_iterator(ofEvents.begin()),
                      std::make_move_iterator(ofEvents.end()));
    for (const auto& row : c.rows)
        if (row.status == RowStatus::Invalid)
            c.coverage.push_back(
                {CoverageKind::InvalidComparison, displayOpName(row), row.id().aot_debug_handle, row.reason});
    for (const auto& skipped : c.alignment().skipped)
        for (const auto* r : skipped.aot)
            c.coverage.push_back({CoverageKind::UnmatchedGroup, r->ops.empty() ? "" : r->ops.front(),
                                  r->debug_handle,
                                  skipped.reason + " (runtime " + skipped.runtime->event->name + ")"});
    for (const auto& [r, rt] : c.alignment().fused)
        c.coverage.push_back({CoverageKind::Fused, r->ops.empty() ? "" : r->ops.front(), r->debug_handle,
                              "inside the runtime group of " + rt->event->name +
                                  "; only the group's last output is compared"});
    for (const auto& err : c.alignment().errors)
        c.coverage.push_back({CoverageKind::AlignmentError, "", {}, err});
}

void buildCoverage(Comparison& c, const MethodMaps* maps) {
    buildCoverage(c, eventCoverage(c.events(), maps));
}

// A warning for each delegate of the program whose debug handles are those of
// another ETRecord graph than the one the capture was taken of.
void warnOfReferenceGraph(const MethodMaps& maps, const AotCapture& capture,
                          std::vector<std::string>& warnings) {
    std::set<std::string> backends;
    for (const auto& entry : maps.delegate_map)
        backends.insert(entry.second.backend);
    for (const auto& backend : backends) {
        const BackendConventions& conventions = backendConventions(backend);
        if (conventions.reference_graph.empty() || keyingGraph(capture) == conventions.reference_graph)
            continue;
        warnings.push_back("the program is lowered to " + std::string(conventions.label) +
                           ", whose debug handles are those of the ETRecord graph '" +
                           std::string(conventions.reference_graph) + "', but the capture is of '" +
                           capture.reference_graph.value_or("an in-memory program") +
                           "': rows may pair different ops. Capture with " +
                           std::string(conventions.capture_hint));
    }
}

// The graph whose nodes decide which runtime events are ops (the Inspector's
// `op_types`, §5.1 step 4). ExecuTorch uses the graph its Inspector was
// constructed with: the edge program by default, `edge_after_transform/forward`
// in the QNN debugger. A capture made from a graph-map entry names that graph,
// and the delegate's handles are only that graph's, so it is used when the
// ETRecord holds it.
const ExportGraph* opGraph(const EtRecord& etrecord, const AotCapture& capture, const std::string& method) {
    if (capture.reference_graph) {
        const auto it = etrecord.graph_map.find(keyingGraph(capture));
        if (it != etrecord.graph_map.end())
            return &it->second;
    }
    return etrecord.edgeProgram(method);
}

} // namespace

namespace {

// The debug handles that count as ops: the graph's nodes, or the capture's
// handles where there is no graph to read. Sorted, each once (OpHandles).
OpHandles opHandlesOf(const EtRecord* etrecord, const ExportGraph* graph, const AotCapture& capture,
                      Comparison& c) {
    std::vector<std::int64_t> opHandles;
    if (etrecord) {
        if (graph) {
            opHandles = graph->allDebugHandles();
        } else {
            // The graph entry could not be read (a warning of the ETRecord says why):
            // the capture's handles stand in for its nodes rather than no row at all.
            for (const auto& r : capture.records)
                opHandles.insert(opHandles.end(), r.debug_handle.begin(), r.debug_handle.end());
            c.warnings.push_back("the ETRecord's edge program for '" + c.method +
                                 "' could not be read: events count as ops by the capture's debug handles");
        }
    } else {
        // Without an ETRecord only __debugID_ names resolve; accept their handles.
        for (const auto& r : capture.records)
            opHandles.insert(opHandles.end(), r.debug_handle.begin(), r.debug_handle.end());
    }
    return OpHandles(std::move(opHandles));
}

} // namespace

Result<PlannedComparison> planComparison(const EtDump& dump, const EtRecord* etrecord,
                                         const AotCapture& capture, const ComparisonOptions& options,
                                         std::optional<EventsBuilt> ahead) {
    PlannedComparison planned;
    Comparison& c = planned.comparison;
    if (dump.runs.empty()) {
        Error e;
        e.code = ErrorCode::Malformed;
        e.message = "the ETDump holds no runs";
        e.where.file = dump.etdump_path;
        return e;
    }
    c.method = options.method.empty() ? capture.method : options.method;
    if (etrecord && !etrecord->methods.empty() && !etrecord->methods.count(c.method)) {
        std::vector<std::string> names;
        for (const auto& [name, maps] : etrecord->methods)
            names.push_back(name);
        return makeError(ErrorCode::Malformed,
                         "method '" + c.method +
                             "' is not in the ETRecord; its methods: " + quotedNames(names),
                         etrecord->path, "debug_handle_map");
    }
    if (capture.method != c.method)
        c.warnings.push_back("the capture is of method '" + capture.method + "' but method '" + c.method +
                             "' is compared: debug handles are numbered per method, so rows pair "
                             "unrelated ops. Capture that method (gapscope-capture from-etrecord --method)");
    c.run = chooseRun(dump, etrecord, options, c);
    c.saved_outputs = options.saved_outputs;
    {
        const auto executions = executionsOf(dump, c.method, c.run_methods, c.saved_outputs != nullptr);
        const auto said =
            runWarnings(dump, etrecord, capture, c.method, c.run, options.run.has_value(), executions);
        c.warnings.insert(c.warnings.end(), said.begin(), said.end());
    }
    if (c.run >= dump.runs.size()) {
        Error e;
        e.code = ErrorCode::Malformed;
        e.message = "run " + std::to_string(c.run) + " requested but the ETDump holds " +
                    std::to_string(dump.runs.size()) + " runs";
        e.where.file = dump.etdump_path;
        return e;
    }
    const MethodMaps* maps = methodMaps(etrecord, c.method);
    const ExportGraph* graph = etrecord ? opGraph(*etrecord, capture, c.method) : nullptr;
    const OpHandles opHandles = opHandlesOf(etrecord, graph, capture, c);

    if (maps)
        warnOfReferenceGraph(*maps, capture, c.warnings);

    const RunData& run = dump.runs[c.run];
    const auto stopped = [&] {
        return options.cancelled && options.cancelled->load(std::memory_order_relaxed);
    };
    const auto cancelledError = [&] {
        Error e;
        e.code = ErrorCode::Cancelled;
        e.message = "cancelled while the comparison was planned";
        e.where.file = dump.etdump_path;
        return e;
    };
    auto aligned = std::make_shared<AlignedRun>();
    // The events the read stage built beside the capture read, when they are of
    // this run and these maps; else built here.
    if (ahead && (ahead->run != &run || ahead->maps != maps))
        ahead.reset();
    aligned->events = ahead ? std::move(ahead->events) : buildInspectorEvents(run, maps);
    // The runtime side built ahead is of the events as they were marked then:
    // it holds when marking them for this plan changes none and none is
    // regrouped (both leave the events where they are).
    const bool remarked = markOpTypes(aligned->events, opHandles) != 0;
    const bool regrouped = graph && resolveMultiOutputNodesByName(aligned->events, *graph);
    RuntimeSide* runtimeAhead =
        ahead && ahead->runtime && !remarked && !regrouped ? &*ahead->runtime : nullptr;
    planned.events_taken = ahead.has_value();
    planned.runtime_taken = runtimeAhead != nullptr;
    if (stopped())
        return cancelledError();
    // Beside the alignment, on another core, one after the other: what coverage
    // says of the events, and, when the runtime op names are known already,
    // their index. One task, not two: on two cores, a third runnable thread
    // beside the alignment's preempted it for milliseconds.
    struct BesideAlignment {
        std::vector<CoverageItem> coverage;
        std::optional<OpNamesWithin> names;
    };
    const std::vector<InspectorEvent>& events = aligned->events;
    SideTask<BesideAlignment> beside([&events, maps, &capture,
                                      names = runtimeAhead ? runtimeAhead->op_names.data() : nullptr,
                                      count = runtimeAhead ? runtimeAhead->op_names.size() : 0] {
        BesideAlignment b;
        b.coverage = eventCoverage(events, maps);
        if (names)
            b.names.emplace(names, count, capture);
        return b;
    });
    aligned->alignment = alignRuntimeWithCapture(aligned->events, capture, graph, runtimeAhead, maps);
    c.aligned = std::move(aligned);
    if (stopped())
        return cancelledError();

    BesideAlignment besides = beside.get();
    std::vector<CoverageItem> eventCoverageItems = std::move(besides.coverage);
    const OpNamesWithin names =
        besides.names ? std::move(*besides.names) : OpNamesWithin(c.alignment().runtime_op_names, capture);
    // Each row is planned from const inputs alone, so blocks of rows are planned
    // on every core (a fifth of opening 50,000 ops on one), with the statuses
    // known before measuring (each row's own); each block checks the cancel
    // flag first. Only the moves into `pending` are left in order, on one core.
    const auto& pairs = c.alignment().pairs;
    c.rows.resize(pairs.size());
    std::vector<RowPlan> plans(pairs.size());
    // 1: measured later (pending); 0: final now (invalid, or nothing to compute).
    std::vector<char> measured(pairs.size(), 0);
    parallelForRanges(pairs.size(), 256, [&](std::size_t begin, std::size_t end) {
        if (stopped())
            return;
        for (std::size_t i = begin; i < end; ++i) {
            const AlignedPair& pair = pairs[i];
            ComparisonRow& placed = c.rows[i];
            placed = planRow(pair, i, dump, capture, names, plans[i]);
            const CaptureRecord& rec = *pair.aot.record;
            if (rec.invalid_reason && pair.runtime_value_valid) {
                placed.status = RowStatus::Invalid;
                placed.reason = "the reference has no value for this op: " + *rec.invalid_reason;
            } else if (rec.runtime_problem && pair.runtime_value_valid) {
                placed.status = RowStatus::Invalid;
                placed.reason = *rec.runtime_problem;
            } else if (pair.ambiguous_selection) {
                placed.status = RowStatus::Invalid;
                placed.reason = pair.selection + ": which runtime output corresponds to the reference cannot "
                                                 "be told, so no number is shown";
            } else if (std::any_of(plans[i].elements().begin(), plans[i].elements().end(),
                                   [](const ElementPlan& e) { return e.measurable(); })) {
                placed.measured = false;
                measured[i] = 1;
            } else {
                applyMeasurement(c, measureRow(plans[i])); // statuses only: nothing to compute
            }
        }
    });
    if (stopped())
        return cancelledError();
    planned.pending.reserve(static_cast<std::size_t>(std::count(measured.begin(), measured.end(), 1)) +
                            capture.taps.size());
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (measured[i])
            planned.pending.push_back(std::move(plans[i]));
    planTapRows(dump, capture, c, planned.pending);
    buildCoverage(c, std::move(eventCoverageItems));
    return planned;
}

RowMeasurement measureRow(const RowPlan& plan, unsigned threads, const std::atomic<bool>* cancelled) {
    return measureRow(plan, {}, threads, cancelled);
}

RowMeasurement measureRow(const RowPlan& plan, std::vector<GapResult> gaps, unsigned threads,
                          const std::atomic<bool>* cancelled) {
    RowMeasurement m;
    m.row = plan.row;
    m.reference_probe = std::make_shared<const ReferenceProbe>(probeReferences(plan.elements()));
    for (std::size_t k = 0; k < plan.elements().size(); ++k) {
        const auto& e = plan.elements()[k];
        m.elements.push_back(k < gaps.size() ? measureElement(e, std::move(gaps[k]), threads, cancelled)
                                             : measureElement(e, threads, cancelled));
    }
    // ExecuTorch compared another reference: its numbers are that comparison's.
    for (std::size_t k = 0; k < plan.executorch_elements.size() && k < m.elements.size(); ++k) {
        auto theirs = measureElement(plan.executorch_elements[k], threads, cancelled);
        m.elements[k].executorch = theirs.executorch;
        if (!theirs.executorch)
            m.elements[k].executorch_problem = theirs.reason;
    }
    return m;
}

std::vector<RowMeasurement> measureRows(const RowPlan* first, std::size_t count,
                                        const std::atomic<bool>* cancelled,
                                        const std::function<void(const RowPlan&)>& rowMeasured) {
    std::vector<RowMeasurement> measured(count);
    const unsigned threads = defaultThreadCount();
    const unsigned inner = count >= threads ? 1u : 0u;
    // Rows a few at a time once every core has some: their pairs are measured
    // together (computeGaps puts four float32 tensors of one chunk in the lanes
    // of one vector), each row as measureRow would alone.
    const std::size_t group = std::clamp<std::size_t>(count / threads, 1, kRowsMeasuredTogether);
    parallelFor((count + group - 1) / group, [&](std::size_t g) {
        const std::size_t begin = g * group, end = std::min(count, begin + group);
        std::size_t elements = 0;
        for (std::size_t i = begin; i < end; ++i)
            elements += first[i].elements().size();
        std::vector<GapOptions> options; // the pairs point into it: never grown past this
        options.reserve(elements);
        std::vector<GapPair> pairs;
        for (std::size_t i = begin; i < end; ++i)
            for (const auto& e : first[i].elements())
                if (e.measurable()) {
                    options.push_back(measuringOptions(e, inner, cancelled));
                    pairs.push_back({&e.reference, &e.runtime, &options.back()});
                }
        auto gaps = computeGaps(pairs);
        std::size_t next = 0;
        for (std::size_t i = begin; i < end; ++i) {
            std::vector<GapResult> mine;
            for (const auto& e : first[i].elements())
                mine.push_back(e.measurable() ? std::move(gaps[next++]) : GapResult{});
            measured[i] = measureRow(first[i], std::move(mine), inner, cancelled);
        }
        if (rowMeasured)
            for (std::size_t i = begin; i < end; ++i)
                rowMeasured(first[i]);
    });
    return measured;
}

void applyMeasurement(Comparison& c, const RowMeasurement& m) {
    ComparisonRow& row = c.rows.at(m.row);
    row.gaps.clear();
    row.reference_probe = m.reference_probe;
    std::vector<ExecutorchGap> theirs;
    for (const auto& e : m.elements) {
        if (e.status > row.status || (e.status == row.status && row.reason.empty())) {
            row.status = e.status;
            row.reason = e.reason;
        }
        if (e.metrics)
            row.gaps.push_back(*e.metrics);
        if (e.executorch)
            theirs.push_back(*e.executorch);
    }
    row.executorch.reset();
    if (row.in_executorch && !m.elements.empty() && theirs.size() == m.elements.size())
        row.executorch = std::move(theirs);
    for (const auto& e : m.elements)
        if (row.in_executorch && !row.executorch && !e.executorch_problem.empty()) {
            // Gapscope's pairing compares; ExecuTorch's would not: say so on the row.
            row.reason += (row.reason.empty() ? "" : "; ") +
                          std::string("ExecuTorch's table raises on this row (") +
                          (row.selection.empty() ? "" : row.selection + ": ") + e.executorch_problem + ")";
            break;
        }
    if (row.status == RowStatus::Invalid)
        row.gaps.clear();
    row.measured = true;
}

void finishComparison(Comparison& c, std::vector<OutputComparison> outputs, const EtRecord* etrecord) {
    c.outputs = std::move(outputs);
    buildCoverage(c, methodMaps(etrecord, c.method));
}

Result<Comparison> compareSession(const EtDump& dump, const EtRecord* etrecord, const AotCapture& capture,
                                  const ComparisonOptions& options) {
    auto planned = planComparison(dump, etrecord, capture, options);
    if (!planned)
        return planned.error();
    Comparison c = std::move(planned.value().comparison);
    for (const auto& m : measureRows(planned.value().pending))
        applyMeasurement(c, m);
    finishComparison(c, compareProgramOutputs(dump, capture, c), etrecord);
    return c;
}

} // namespace gapscope
