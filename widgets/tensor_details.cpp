#include "widgets/tensor_details.h"

#include "core/compare/element_reader.h"
#include "core/metrics/gap_metrics.h"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

namespace gapscope {

QString nonFiniteNote(const ElementRule& rule) {
    if (!rule.replacesNonFinite())
        return {};
    const QString side = rule.fixesReference() && rule.fixesRuntime() ? QObject::tr("Both sides hold")
                         : rule.fixesReference()                      ? QObject::tr("The reference holds")
                                                                      : QObject::tr("The runtime holds");
    return QObject::tr("%1 NaN: compared as ExecuTorch does, after nan_to_num (NaN as 0, ±Inf as ±max).")
        .arg(side);
}

TensorDetails computeDetails(const ElementPlan& plan, std::size_t maxSamples,
                             const std::atomic<bool>* cancelled, const GapMetrics* measured) {
    TensorDetails d;
    const auto reader = ElementReader::of(plan, measured);
    if (!reader)
        return d;
    const std::uint64_t numel = reader->numel();
    d.nonFinite = nonFiniteNote(reader->rule());
    const std::uint64_t step = std::max<std::uint64_t>(1, numel / maxSamples);
    QVector<double> diffs;
    for (std::uint64_t i = 0; i < numel; i += step) {
        const double x = reader->reference(i), y = reader->runtime(i);
        d.xs << x;
        d.ys << y;
        diffs << x - y;
    }
    // Sorted by reference value here, off the UI thread: QCPGraph keeps its
    // points in key order and would sort them itself on the UI thread.
    {
        std::vector<std::pair<double, double>> points(static_cast<std::size_t>(d.xs.size()));
        for (qsizetype i = 0; i < d.xs.size(); ++i)
            points[static_cast<std::size_t>(i)] = {d.xs[i], d.ys[i]};
        std::stable_sort(points.begin(), points.end(),
                         [](const auto& l, const auto& r) { return l.first < r.first; });
        for (qsizetype i = 0; i < d.xs.size(); ++i)
            std::tie(d.xs[i], d.ys[i]) = points[static_cast<std::size_t>(i)];
    }
    double m = 0;
    for (double v : diffs)
        if (std::isfinite(v))
            m = std::max(m, std::fabs(v));
    // Bins centred on zero; identical tensors (no spread) get a unit range, so
    // their one bar stands at 0 in the middle instead of at the left edge.
    const int bins = 41;
    const double half = m > 0 ? m : 1.0;
    d.binWidth = 2 * half / bins;
    d.centers.resize(bins);
    d.counts.fill(0, bins);
    for (int i = 0; i < bins; ++i)
        d.centers[i] = -half + (i + 0.5) * d.binWidth;
    for (double v : diffs)
        if (std::isfinite(v))
            d.counts[std::clamp(static_cast<int>((v + half) / d.binWidth), 0, bins - 1)] += 1;

    if (!reader->shape().empty()) {
        // The metrics' own per-channel breakdown, with the element's dequantisation and layout.
        GapOptions options = plan.options;
        d.axis = static_cast<int>(reader->channelAxis());
        options.breakdown_axis = d.axis;
        options.cancelled = cancelled;
        if (const auto g = computeGap(plan.reference, plan.runtime, options); g.metrics)
            for (std::size_t c = 0; c < g.metrics->per_channel.size(); ++c) {
                d.channelKeys << static_cast<double>(c);
                d.channelMse << g.metrics->per_channel[c].mse;
            }
    }
    for (const auto& w : largestDifferences(*reader, 5, cancelled)) {
        QStringList idx;
        for (auto i : w.index)
            idx << QString::number(i);
        d.worst << QStringLiteral("[%1] ref %2  runtime %3  Δ %4")
                       .arg(idx.join(QStringLiteral(", ")))
                       .arg(w.aot, 0, 'g', 5)
                       .arg(w.runtime, 0, 'g', 5)
                       .arg(w.difference, 0, 'g', 3);
    }
    return d;
}

} // namespace gapscope
