#pragma once

#include "core/metrics/gap_metrics.h"

#include <atomic>
#include <cmath>
#include <cstdint>

namespace gapscope {

// A reference value and the runtime value it is compared with, as the metrics
// use them, and whether the device clipped that runtime value.
struct ComparedPair {
    double reference = 0, runtime = 0;
    bool clipped = false;
};

// What a comparison does to each pair of elements before the metrics see it
// (docs/metrics.md): the device value is dequantised with its channel's scale
// and zero point; a value the device holds at qmin or qmax while the reference
// lies more than half a step beyond it counts as clipped; and a side that holds
// a NaN anywhere goes through torch.nan_to_num (NaN → 0, ±Inf → ±max), as
// ExecuTorch converts it. computeGap and the views' ElementReader both apply
// this one rule, so what a view shows is what the metrics compared.
class ElementRule {
public:
    // `fixReference`/`fixRuntime`: that side holds a NaN (countNonFinite).
    ElementRule(const GapOptions& options, bool fixReference, bool fixRuntime);

    ComparedPair operator()(double reference, double device, std::size_t channel) const {
        const double b = dequantized(device, channel);
        bool clipped = false;
        if (m_clip) {
            const double half = 0.5 * std::fabs(m_tf->scale[channel]);
            clipped =
                (device == m_qmin && reference < b - half) || (device == m_qmax && reference > b + half);
        }
        return {this->reference(reference), fixedRuntime(b), clipped};
    }
    // One side's value as compared.
    double reference(double value) const { return m_fixReference ? nanToNum(value) : value; }
    double runtime(double device, std::size_t channel) const {
        return fixedRuntime(dequantized(device, channel));
    }
    double dequantized(double device, std::size_t channel) const {
        return m_tf->dequantizes() ? dequantize(*m_tf, device, channel) : device;
    }
    bool replacesNonFinite() const { return m_fixReference || m_fixRuntime; }
    bool fixesReference() const { return m_fixReference; }
    bool fixesRuntime() const { return m_fixRuntime; }

    // torch.nan_to_num's defaults.
    static double nanToNum(double x);

private:
    double fixedRuntime(double value) const { return m_fixRuntime ? nanToNum(value) : value; }

    const OperandTransform* m_tf;
    bool m_clip;
    double m_qmin = 0, m_qmax = 0;
    bool m_fixReference, m_fixRuntime;
};

struct NonFiniteCount {
    std::uint64_t nan = 0, inf = 0;
};

// The NaN and infinities a tensor holds, in one parallel pass (`threads` as in
// GapOptions); partial once `cancelled` is set.
NonFiniteCount countNonFinite(const Operand& o, unsigned threads, const std::atomic<bool>* cancelled);

} // namespace gapscope
