#include "core/compare/step_matrix.h"

#include "core/compare/run_diff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gapscope {

StepMatrix buildStepMatrix(const std::vector<RunSummary>& steps, Metric metric,
                           const MetricThreshold& threshold) {
    StepMatrix m;
    m.metric = metric;
    m.steps = steps.size();
    const std::size_t position = metricIndex(metric);
    const MetricInfo& info = metricInfo(metric);
    const auto limit = thresholdOn(threshold, metric);

    // The ops: every step's rows by node, in graph order of the step that has them first.
    std::map<std::pair<std::int64_t, int>, std::size_t> opOf;
    for (const auto& step : steps) {
        std::vector<const RunRow*> ordered;
        for (const auto& r : step.rows)
            ordered.push_back(&r);
        std::stable_sort(ordered.begin(), ordered.end(), [](const RunRow* x, const RunRow* y) {
            return x->compared_handle < y->compared_handle;
        });
        for (const RunRow* r : ordered)
            if (opOf.emplace(std::make_pair(r->compared_handle, r->output_index), m.ops.size()).second)
                m.ops.push_back(r->compared_node);
    }
    m.values.assign(m.ops.size() * m.steps, std::numeric_limits<double>::quiet_NaN());
    m.rows.assign(m.ops.size() * m.steps, -1);
    for (std::size_t s = 0; s < steps.size(); ++s)
        for (const auto& r : steps[s].rows) {
            const std::size_t op = opOf.at({r.compared_handle, r.output_index});
            m.rows[op * m.steps + s] = static_cast<std::int64_t>(r.index);
            if (position < r.metrics.size() && r.metrics[position])
                m.values[op * m.steps + s] = *r.metrics[position];
        }
    for (std::size_t s = 0; s < m.steps; ++s)
        for (std::size_t op = 0; op < m.ops.size(); ++op) {
            const double v = m.at(op, s);
            if (std::isnan(v))
                continue;
            if (!m.first_crossing && limit && worseThan(info, v, *limit))
                m.first_crossing = StepMatrix::Cell{s, op, v};
            if (!m.worst || worseThan(info, v, m.worst->value))
                m.worst = StepMatrix::Cell{s, op, v};
        }
    return m;
}

StepMatrix buildStepDifference(const std::vector<RunSummary>& a, const std::vector<RunSummary>& b,
                               Metric metric, double margin) {
    const std::vector<RunSummary> shared(
        a.begin(), a.begin() + static_cast<std::ptrdiff_t>(std::min(a.size(), b.size())));
    StepMatrix m = buildStepMatrix(shared, metric, {});
    m.difference = true;
    m.first_crossing.reset();
    m.worst.reset();
    std::fill(m.values.begin(), m.values.end(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t s = 0; s < m.steps; ++s) {
        // A's row index → its op at this step.
        std::map<std::int64_t, std::size_t> opOfRow;
        for (std::size_t op = 0; op < m.ops.size(); ++op)
            if (m.rowAt(op, s) >= 0)
                opOfRow.emplace(m.rowAt(op, s), op);
        const RunMatch match = matchRuns(a[s], b[s]);
        for (const auto& p : match.pairs) {
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
            // The worst finite cell: +∞ (A exact, or B without a number) says nothing of how much.
            const bool better = !m.worst || (std::isinf(m.worst->value) && !std::isinf(v)) ||
                                (std::isinf(m.worst->value) == std::isinf(v) && v > m.worst->value);
            if (better)
                m.worst = StepMatrix::Cell{s, op, v};
        }
    return m;
}

} // namespace gapscope
