#include "core/runs/step_matrix.h"

#include "core/runs/run_diff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace gapscope {

namespace {

// The matrix of the first `count` steps (the difference takes the steps both loops have, without copying
// them).
StepMatrix buildStepMatrix(const RunSummary* steps, std::size_t count, Metric metric,
                           const MetricThreshold& threshold) {
    StepMatrix m;
    m.metric = metric;
    m.steps = count;
    const std::size_t position = metricIndex(metric);
    const MetricInfo& info = metricInfo(metric);
    const auto limit = thresholdOn(threshold, metric);

    // The ops: every step's rows by node, in graph order of the step that has them first.
    // A tap is an op row of its own (RunRow::tap), named as the table names it.
    std::map<std::tuple<std::int64_t, int, bool>, std::size_t> opOf;
    for (const RunSummary* step = steps; step != steps + count; ++step) {
        std::vector<const RunRow*> ordered;
        for (const auto& r : step->rows)
            ordered.push_back(&r);
        std::stable_sort(ordered.begin(), ordered.end(), [](const RunRow* x, const RunRow* y) {
            return x->compared_handle < y->compared_handle;
        });
        for (const RunRow* r : ordered)
            if (opOf.emplace(std::make_tuple(r->compared_handle, r->output_index, r->tap), m.ops.size())
                    .second)
                m.ops.push_back(r->tap ? "↳ " + r->compared_node : r->compared_node);
    }
    m.values.assign(m.ops.size() * m.steps, std::numeric_limits<double>::quiet_NaN());
    m.rows.assign(m.ops.size() * m.steps, -1);
    for (std::size_t s = 0; s < count; ++s)
        for (const auto& r : steps[s].rows) {
            const std::size_t op = opOf.at({r.compared_handle, r.output_index, r.tap});
            m.rows[op * m.steps + s] = static_cast<std::int64_t>(r.index);
            if (position < r.metrics.size() && r.metrics[position])
                m.values[op * m.steps + s] = *r.metrics[position];
            if (r.bounds) {
                if (m.bounded.empty())
                    m.bounded.assign(m.values.size(), 0);
                m.bounded[op * m.steps + s] = 1;
            }
        }
    for (std::size_t s = 0; s < m.steps; ++s)
        for (std::size_t op = 0; op < m.ops.size(); ++op) {
            const double v = m.at(op, s);
            if (std::isnan(v))
                continue;
            const bool bound = m.boundAt(op, s);
            if (!m.first_crossing && limit && worseThan(info, v, *limit))
                m.first_crossing = StepMatrix::Cell{s, op, v, bound};
            if (!m.worst || worseThan(info, v, m.worst->value))
                m.worst = StepMatrix::Cell{s, op, v, bound};
        }
    return m;
}

} // namespace

StepMatrix buildStepMatrix(const std::vector<RunSummary>& steps, Metric metric,
                           const MetricThreshold& threshold) {
    return buildStepMatrix(steps.data(), steps.size(), metric, threshold);
}

std::vector<RunMatch> matchSteps(const std::vector<RunSummary>& a, const std::vector<RunSummary>& b) {
    std::vector<RunMatch> matches;
    for (std::size_t s = 0; s < std::min(a.size(), b.size()); ++s)
        matches.push_back(matchRuns(a[s], b[s]));
    return matches;
}

StepMatrix buildStepDifference(const std::vector<RunSummary>& a, const std::vector<RunSummary>& b,
                               Metric metric, double margin) {
    return buildStepDifference(a, b, matchSteps(a, b), metric, margin);
}

StepMatrix buildStepDifference(const std::vector<RunSummary>& a, const std::vector<RunSummary>& b,
                               const std::vector<RunMatch>& matches, Metric metric, double margin) {
    StepMatrix m = buildStepMatrix(a.data(), std::min({a.size(), b.size(), matches.size()}), metric, {});
    m.difference = true;
    m.bounded.clear(); // how much worse B is: a difference, never a bound
    m.first_crossing.reset();
    m.worst.reset();
    std::fill(m.values.begin(), m.values.end(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t s = 0; s < m.steps; ++s) {
        // A's row index → its op at this step.
        std::map<std::int64_t, std::size_t> opOfRow;
        for (std::size_t op = 0; op < m.ops.size(); ++op)
            if (m.rowAt(op, s) >= 0)
                opOfRow.emplace(m.rowAt(op, s), op);
        for (const auto& p : matches[s].pairs) {
            if (!p.a || !p.b)
                continue;
            const auto op = opOfRow.find(static_cast<std::int64_t>(a[s].rows[*p.a].index));
            const auto worse = metricDelta(a[s], b[s], p, metric).worse_by;
            if (op != opOfRow.end() && worse)
                m.values[op->second * m.steps + s] = *worse;
        }
    }
    for (std::size_t s = 0; s < m.steps; ++s)
        for (std::size_t op = 0; op < m.ops.size(); ++op) {
            const double v = m.at(op, s);
            if (std::isnan(v))
                continue;
            if (!m.first_crossing && v > margin)
                m.first_crossing = StepMatrix::Cell{s, op, v};
            // The worst finite cell: +∞ (B without a number) says nothing of how much.
            // A cell where B is not worse is no worst (issue 56: "Worst: step 0
            // (gt, 0)" named a tie).
            if (!(v > 0))
                continue;
            const bool better = !m.worst || (std::isinf(m.worst->value) && !std::isinf(v)) ||
                                (std::isinf(m.worst->value) == std::isinf(v) && v > m.worst->value);
            if (better)
                m.worst = StepMatrix::Cell{s, op, v};
        }
    return m;
}

} // namespace gapscope
