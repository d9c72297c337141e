#include "core/metrics/element_rule.h"

#include "core/common/parallel.h"
#include "core/metrics/finite_pass.h"

#include <cmath>
#include <limits>
#include <vector>

namespace gapscope {

ElementRule::ElementRule(const GapOptions& options, bool fixReference, bool fixRuntime)
    : m_tf(&options.runtime_transform),
      m_clip(options.qmin && options.qmax && options.runtime_transform.dequantizes()),
      m_fixReference(fixReference), m_fixRuntime(fixRuntime) {
    if (m_clip) {
        m_qmin = static_cast<double>(*options.qmin);
        m_qmax = static_cast<double>(*options.qmax);
    }
}

double ElementRule::nanToNum(double x) {
    if (std::isnan(x))
        return 0.0;
    if (std::isinf(x))
        return x > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
    return x;
}

namespace {
constexpr std::uint64_t kScanChunk = 1u << 20;
}

NonFiniteCount countNonFinite(const Operand& o, unsigned threads, const std::atomic<bool>* cancelled) {
    const auto chunks = static_cast<std::size_t>((o.numel + kScanChunk - 1) / kScanChunk);
    std::vector<NonFiniteCount> partial(chunks);
    parallelFor(
        chunks,
        [&](std::size_t c) {
            const std::uint64_t end = std::min<std::uint64_t>(o.numel, (c + 1) * kScanChunk);
            std::vector<double> buf(gapBlockFor(end - c * kScanChunk));
            NonFiniteCount local;
            if (gapCancelled(cancelled))
                return;
            for (std::uint64_t first = c * kScanChunk; first < end; first += kGapBlock) {
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kGapBlock, end - first));
                o.decode(first, n, buf.data());
                for (std::size_t i = 0; i < n; ++i) {
                    local.nan += std::isnan(buf[i]) ? 1 : 0;
                    local.inf += std::isinf(buf[i]) ? 1 : 0;
                }
            }
            partial[c] = local;
        },
        threads);
    NonFiniteCount r;
    for (const auto& p : partial) {
        r.nan += p.nan;
        r.inf += p.inf;
    }
    return r;
}

} // namespace gapscope
