#include "core/runs/run_diff.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

// SNR and SQNR: levels in dB, which the rounding floor bounds.
bool inDecibels(const MetricInfo& metric) {
    return metric.id == Metric::Snr || metric.id == Metric::Sqnr;
}

std::optional<double> valueOf(const RunSummary& run, std::optional<std::size_t> row, std::size_t position) {
    if (!row || position >= run.rows[*row].metrics.size())
        return std::nullopt;
    return run.rows[*row].metrics[position];
}

} // namespace

ComparedRuns compareRuns(RunSummary a, RunSummary b) {
    ComparedRuns runs{std::move(a), std::move(b), {}};
    runs.match = matchRuns(runs.a, runs.b);
    return runs;
}

MetricDelta metricDelta(const MetricInfo& metric, std::optional<double> a, std::optional<double> b) {
    MetricDelta d{a, b, std::nullopt, std::nullopt};
    if (a && b)
        d.delta = *a == *b ? 0.0 : *b - *a; // ∞ against ∞ is no change, not NaN
    if (a && !std::isnan(*a)) {
        // Above the rounding floor a level in dB is rounding, not accuracy: an
        // exact row (+∞) against one at 127 dB is no worsening, and one at 40 dB
        // is worse by 60, not by ∞ (issue 56: tied ∞ rows led the ranking).
        const auto level = [&](double v) { return inDecibels(metric) ? std::min(v, kRoundingFloorDb) : v; };
        if (!b || std::isnan(*b))
            d.worse_by = std::numeric_limits<double>::infinity();
        else if (level(*a) == level(*b))
            d.worse_by = 0.0; // ∞ against ∞ is no change, not NaN
        else
            d.worse_by = metric.higher_is_worse ? *b - *a : level(*a) - level(*b);
    }
    return d;
}

MetricDelta metricDelta(const RunSummary& a, const RunSummary& b, const RowPairing& p, Metric metric) {
    const auto position = metricIndex(metric);
    const auto va = valueOf(a, p.a, position), vb = valueOf(b, p.b, position);
    if (!p.a || !p.b || p.referencesDisagree()) // a row of one run only, or not one tensor
        return {va, vb, std::nullopt, std::nullopt};
    return metricDelta(metricInfo(metric), va, vb);
}

std::vector<Regression> regressions(const RunSummary& a, const RunSummary& b, const RunMatch& match,
                                    const std::vector<MetricThreshold>& margins) {
    std::vector<Regression> out;
    for (std::size_t k = 0; k < match.pairs.size(); ++k) {
        const auto& p = match.pairs[k];
        if (!p.a || !p.b)
            continue;
        const auto level = metricDelta(a, b, p, Metric::Snr);
        if (level.a && level.b && *level.a >= kRoundingFloorDb && *level.b >= kRoundingFloorDb)
            continue; // both at rounding level (+∞ included: exact); NaN is not
        for (const auto& margin : margins) {
            const auto d = metricDelta(a, b, p, margin.metric);
            if (!d.worse_by || !(*d.worse_by > margin.value))
                continue;
            out.push_back({k, margin, d});
        }
    }
    return out;
}

std::vector<std::size_t> rankByWorsening(const RunSummary& a, const RunSummary& b, const RunMatch& match,
                                         Metric metric) {
    std::vector<std::size_t> order(match.pairs.size());
    std::vector<std::optional<double>> key(match.pairs.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        order[k] = k;
        key[k] = metricDelta(a, b, match.pairs[k], metric).worse_by;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        if (key[x].has_value() != key[y].has_value())
            return key[x].has_value();
        return key[x] && *key[x] > *key[y];
    });
    return order;
}

} // namespace gapscope
