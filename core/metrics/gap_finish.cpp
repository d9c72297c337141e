#include "core/metrics/gap_finish.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

void finishGap(GapMetrics& m, const GapAccumulator& acc, const std::vector<GapAccumulator>& channels,
               std::uint64_t total, const std::vector<std::int64_t>& out,
               std::optional<std::size_t> breakdown, TopKAgreement& ranks, const GapOptions& options) {
    const auto& tf = options.runtime_transform;
    const double n = static_cast<double>(total);
    for (const auto& ch : channels) {
        const double per = breakdown ? n / static_cast<double>(out[*breakdown]) : n;
        const double cd2 = ch.d2.value(), ca2 = ch.a2.value();
        m.per_channel.push_back(
            {cd2 / per, std::max(0.0, ch.maxAbs), 10.0 * std::log10((ca2 / per) / (cd2 / per))});
    }
    const double d2 = acc.d2.value(), a2 = acc.a2.value(), b2 = acc.b2.value();
    m.mse = d2 / n;
    m.l1 = acc.d1.value();
    m.snr = 10.0 * std::log10((a2 / n) / (d2 / n));
    m.mean_abs = m.l1 / n;
    m.max_abs = total > 0 && !(acc.maxAbs < 0) ? acc.maxAbs : 0; // -1: every position agreed
    if (total > 0)
        m.max_abs_index = unravelIndex(acc.maxAt, out);
    m.rel_l2 =
        a2 > 0 ? std::sqrt(d2) / std::sqrt(a2) : (d2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    const double norms = std::sqrt(a2) * std::sqrt(b2);
    m.cosine = norms > 0 ? acc.ab.value() / norms : (a2 == 0 && b2 == 0 ? 1.0 : 0.0);
    m.sqnr = 20.0 * std::log10(std::sqrt(a2) / std::sqrt(d2));
    m.runtime_sqnr = 20.0 * std::log10(std::sqrt(b2) / std::sqrt(d2));
    const std::optional<double> step =
        options.step
            ? options.step
            : (tf.dequantizes() && tf.scale.size() == 1 ? std::optional<double>(tf.scale[0]) : std::nullopt);
    if (step && *step > 0) {
        m.rmse_steps = std::sqrt(m.mse) / *step;
        m.max_abs_steps = m.max_abs / *step;
    }
    if (options.qmin && options.qmax && total > 0)
        m.saturation = static_cast<double>(acc.saturated) / n;

    ranks.finish(m);
}

} // namespace gapscope
