#pragma once

#include "core/compare/element_plan.h"
#include "core/metrics/element_rule.h"

#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <cstddef>

namespace gapscope {

// Everything the tensor panel's details row shows (runtime-vs-reference
// samples, the difference histogram, the per-channel MSE, the worst elements),
// computed from the row's element plan without touching a widget, so that big
// tensors are processed off the UI thread.
struct TensorDetails {
    QVector<double> xs, ys;          // sampled reference, runtime, by ascending reference
    QVector<double> centers, counts; // difference histogram
    double binWidth = 1;
    QVector<double> channelKeys, channelMse;
    int axis = 0;
    QStringList worst;
    // Set when a side holds a NaN: the metrics, and so every value shown,
    // compared it after nan_to_num (docs/metrics.md).
    QString nonFinite;
};

// What the panel says when nan_to_num changed the compared values; empty otherwise.
QString nonFiniteNote(const ElementRule& rule);

// At most about maxSamples points for the scatter and the histogram. Stops
// early, with partial details nobody should show, once `cancelled` is set.
// `measured`: the plan's metrics, when known (the reader's NaN rule then needs no scan).
TensorDetails computeDetails(const ElementPlan& plan, std::size_t maxSamples,
                             const std::atomic<bool>* cancelled = nullptr,
                             const GapMetrics* measured = nullptr);

} // namespace gapscope
