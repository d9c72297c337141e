#include "core/compare/findings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <unordered_map>

namespace gapscope {

std::vector<std::size_t> executionOrder(const Comparison& c) {
    std::vector<std::size_t> order;
    for (const auto& r : c.rows)
        order.push_back(r.index);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto& x = c.rows[a];
        const auto& y = c.rows[b];
        // A tap sorts after the outputs of the row it is nested under (tap_rows.h).
        if (x.instruction_id != y.instruction_id)
            return x.instruction_id < y.instruction_id;
        if ((x.tap != nullptr) != (y.tap != nullptr))
            return x.tap == nullptr;
        return x.output_index < y.output_index;
    });
    return order;
}

std::optional<FirstDivergence> firstDivergence(const Comparison& c, const MetricThreshold& threshold) {
    for (const auto i : executionOrder(c))
        if (crossesThreshold(c.rows[i], threshold))
            return FirstDivergence{c.rows[i].index, threshold, *rowMetric(c.rows[i], threshold.metric)};
    return std::nullopt;
}

namespace {

// Every output equal element for element, with nothing undefined on either side:
// all-zero state tensors (an LSTM's h0) give SNR 0/0 = NaN, which is no gap.
bool agrees(const GapMetrics& g) {
    return g.mse == 0.0 && g.max_abs == 0.0 && g.nan_aot == 0 && g.nan_runtime == 0;
}

bool agreesExactly(const ComparisonRow& row) {
    return !row.gaps.empty() && std::all_of(row.gaps.begin(), row.gaps.end(), agrees);
}

} // namespace

std::optional<std::size_t> stepPastThreshold(const Comparison& c, std::optional<std::size_t> from,
                                             int direction, const MetricThreshold& threshold) {
    const auto order = executionOrder(c);
    if (order.empty())
        return std::nullopt;
    const auto n = static_cast<long>(order.size());
    const auto at = std::find(order.begin(), order.end(), from.value_or(order.front())) - order.begin();
    for (long step = 1; step <= n; ++step) {
        const auto i = static_cast<std::size_t>(((at + direction * step) % n + n) % n);
        if (crossesThreshold(c.rows[order[i]], threshold))
            return order[i];
    }
    return std::nullopt;
}

bool crossesThreshold(const ComparisonRow& row, const MetricThreshold& threshold) {
    if (row.status != RowStatus::Ok || agreesExactly(row))
        return false;
    const auto v = rowMetric(row, threshold.metric);
    return v && worseThan(metricInfo(threshold.metric), *v, threshold.value);
}

bool comparedAnything(const Comparison& c) {
    return std::any_of(c.rows.begin(), c.rows.end(),
                       [](const ComparisonRow& row) { return rowMetric(row, Metric::Mse).has_value(); });
}

std::optional<FirstDivergence> worstRow(const Comparison& c, const MetricThreshold& threshold) {
    const MetricInfo& info = metricInfo(threshold.metric);
    std::optional<FirstDivergence> worst;
    for (const auto i : executionOrder(c)) {
        const auto& row = c.rows[i];
        const auto v = row.status == RowStatus::Ok && !agreesExactly(row) ? rowMetric(row, threshold.metric)
                                                                          : std::nullopt;
        if (v && !std::isnan(*v) && (!worst || worseThan(info, *v, worst->value)))
            worst = FirstDivergence{row.index, threshold, *v};
    }
    return worst;
}

bool crossesThreshold(const OutputComparison& output, const MetricThreshold& threshold) {
    if (output.status != RowStatus::Ok || !output.metrics || agrees(*output.metrics))
        return false;
    const auto v = metricValue(*output.metrics, threshold.metric);
    return v && worseThan(metricInfo(threshold.metric), *v, threshold.value);
}

const ExportGraph* referenceGraphFor(const EtRecord& record, const AotCapture& capture) {
    const std::string name = capture.reference_graph.value_or("");
    if (name == "exported_program" && record.exported_program)
        return &*record.exported_program;
    if (name == "edge_dialect_exported_program")
        return record.edgeProgram(capture.method);
    const std::string key = name.find('/') == std::string::npos ? name + "/forward" : name;
    if (auto it = record.graph_map.find(key); it != record.graph_map.end())
        return &it->second;
    // A capture of another graph (a float reference, an in-memory program): the
    // ETRecord graph that names most of its ops.
    std::vector<const ExportGraph*> candidates;
    if (record.exported_program)
        candidates.push_back(&*record.exported_program);
    if (const auto* edge = record.edgeProgram(capture.method))
        candidates.push_back(edge);
    for (const auto& [k, g] : record.graph_map)
        candidates.push_back(&g);
    const ExportGraph* best = nullptr;
    std::size_t bestScore = 0;
    for (const auto* g : candidates) {
        std::set<std::string> names;
        for (const auto& n : g->nodes)
            names.insert(n.name);
        std::size_t score = 0;
        for (const auto& r : capture.records)
            for (const auto& op : r.ops)
                score += names.count(op);
        if (score > bestScore) {
            best = g;
            bestScore = score;
        }
    }
    return best;
}

double roundingFloor(const ComparisonRow& row) {
    const auto rel = rowMetric(row, Metric::RelL2);
    const auto steps = rowMetric(row, Metric::RmseSteps);
    if (rel && steps && *rel > 0 && *steps > 0 && std::isfinite(*rel) && std::isfinite(*steps))
        return std::max(Introducer::kErrorFloor, *rel / (*steps * std::sqrt(12.0)));
    return Introducer::kErrorFloor;
}

double gainDb(double own, double producer, double floor) {
    return 20.0 * std::log10((own + floor) / (producer + floor));
}

namespace {

// A row's rel. L2 when it compares element for element; a broadcast row's number
// mixes unrelated elements, so it neither introduces error nor feeds another row.
// Nor does a tap's row (issue 58): its op's name is also its delegate's row's, so
// the graph walk would take the delegate's final outputs for its producers, and
// a STATS tap's number is a bound, not a measurement.
std::optional<double> comparableRelL2(const ComparisonRow& row) {
    return row.status == RowStatus::Ok && !row.tap ? rowMetric(row, Metric::RelL2) : std::nullopt;
}

std::vector<Introducer> introducersAlongExecutionOrder(const Comparison& c) {
    std::vector<Introducer> out;
    std::optional<std::size_t> previous;
    for (const auto i : executionOrder(c)) {
        const auto own = comparableRelL2(c.rows[i]);
        if (!own)
            continue;
        Introducer in;
        in.row = i;
        in.own = *own;
        in.producers_from_graph = false;
        if (previous) {
            in.producers.push_back(*previous);
            in.worst_producer = *comparableRelL2(c.rows[*previous]);
        }
        in.added = in.own - in.worst_producer;
        out.push_back(in);
        previous = i;
    }
    return out;
}

void rankByAddedError(const Comparison& c, std::vector<Introducer>& introducers) {
    for (auto& in : introducers)
        in.gain_db = in.producers.empty() ? std::numeric_limits<double>::quiet_NaN()
                                          : gainDb(in.own, in.worst_producer, roundingFloor(c.rows[in.row]));
    std::stable_sort(introducers.begin(), introducers.end(),
                     [](const Introducer& a, const Introducer& b) { return a.added > b.added; });
}

} // namespace

std::optional<Introducer> strongestGain(const std::vector<Introducer>& introducers) {
    const Introducer* best = nullptr;
    for (const auto& in : introducers)
        if (std::isfinite(in.gain_db) && (!best || in.gain_db > best->gain_db))
            best = &in;
    if (!best || best->gain_db < 6.0)
        return std::nullopt;
    return *best;
}

std::vector<Introducer> errorIntroducers(const Comparison& c, const ExportGraph* graph) {
    if (!graph) {
        auto out = introducersAlongExecutionOrder(c);
        rankByAddedError(c, out);
        return out;
    }
    std::vector<Introducer> out;
    // The walk runs on node indices: every name is looked up once here, not once
    // per row, and no row allocates sets of its own (findings_ms_50k, bench/).
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    const std::size_t n = graph->nodes.size();
    // Which row compares each op (a fused group's ops all belong to its row).
    std::unordered_map<std::string_view, std::size_t> rowOfOp;
    for (const auto& r : c.rows)
        for (const auto& op : r.id().aot_ops)
            rowOfOp.emplace(op, r.index);
    std::unordered_map<std::string_view, std::size_t> nodeByName; // the last node of a name
    // The first producer of each tensor, as ExportGraph::producerOf returns.
    std::unordered_map<std::string_view, std::size_t> producerOf;
    std::vector<std::size_t> rowOfNode(n, kNone);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& node = graph->nodes[i];
        nodeByName[node.name] = i;
        for (const auto& t : node.output_tensors)
            producerOf.emplace(t, i);
        if (const auto it = rowOfOp.find(node.name); it != rowOfOp.end())
            rowOfNode[i] = it->second;
    }
    // The producers of each node's inputs (kNone for a graph input), in a row.
    std::vector<std::size_t> inputsBegin(n + 1, 0), inputProducers;
    for (std::size_t i = 0; i < n; ++i) {
        for (const auto& t : graph->nodes[i].input_tensors) {
            const auto p = producerOf.find(t);
            inputProducers.push_back(p == producerOf.end() ? kNone : p->second);
        }
        inputsBegin[i + 1] = inputProducers.size();
    }

    // Producer rows: walk up from the row's inputs through nodes no row compares
    // (quantize/dequantize pairs, views) until a compared node is reached. Each
    // node is entered once per row (a stamp of the row), as each tensor was.
    std::vector<std::size_t> stamp(n, kNone), frontier, producers;
    for (const auto& r : c.rows) {
        const auto own = comparableRelL2(r);
        if (!own)
            continue;
        producers.clear();
        const auto push = [&](std::size_t node) {
            for (std::size_t k = inputsBegin[node]; k < inputsBegin[node + 1]; ++k)
                if (inputProducers[k] != kNone)
                    frontier.push_back(inputProducers[k]);
        };
        for (const auto& op : r.id().aot_ops)
            if (auto node = nodeByName.find(op); node != nodeByName.end())
                push(node->second);
        while (!frontier.empty()) {
            const std::size_t p = frontier.back();
            frontier.pop_back();
            if (stamp[p] == r.index)
                continue;
            stamp[p] = r.index;
            if (rowOfNode[p] == kNone)
                push(p);
            else if (rowOfNode[p] != r.index)
                producers.push_back(rowOfNode[p]);
        }
        std::sort(producers.begin(), producers.end());
        producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
        Introducer in;
        in.row = r.index;
        in.own = *own;
        for (auto p : producers)
            if (const auto v = comparableRelL2(c.rows[p]))
                in.worst_producer = std::max(in.worst_producer, *v);
        in.producers = producers;
        in.added = in.own - in.worst_producer;
        out.push_back(std::move(in));
    }
    rankByAddedError(c, out);
    return out;
}

} // namespace gapscope
