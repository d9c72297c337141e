#include "core/metrics/element_layout.h"

#include <algorithm>

namespace gapscope {

std::variant<ElementLayout, std::string> ElementLayout::of(const Operand& reference, const Operand& runtime,
                                                           const OperandTransform& tf) {
    // The runtime tensor's shape in the reference layout, and the stride of each
    // reference-layout dim in the runtime's storage.
    std::vector<std::int64_t> rtShape = runtime.shape();
    std::vector<std::uint64_t> rtStridesRef;
    const auto rtStrides = rowMajorStrides(runtime.shape());
    if (tf.axis_order && !runtime.is_scalar) {
        const auto& p = *tf.axis_order;
        if (p.size() != runtime.shape().size())
            return "axis_order has " + std::to_string(p.size()) + " axes but the runtime tensor has rank " +
                   std::to_string(runtime.shape().size());
        rtShape.assign(p.size(), -1);
        rtStridesRef.assign(p.size(), 0);
        for (std::size_t j = 0; j < p.size(); ++j) {
            // runtime = reference.permute(order): runtime dim j is reference dim order[j].
            if (p[j] < 0 || static_cast<std::size_t>(p[j]) >= p.size() ||
                rtShape[static_cast<std::size_t>(p[j])] != -1)
                return "axis_order is not a permutation of the runtime tensor's " + std::to_string(p.size()) +
                       " axes";
            rtShape[static_cast<std::size_t>(p[j])] = runtime.shape()[j];
            rtStridesRef[static_cast<std::size_t>(p[j])] = rtStrides[j];
        }
    } else {
        rtStridesRef = rtStrides;
    }

    ElementLayout layout;
    const auto& aShape = reference.shape();
    const std::size_t rank = std::max(aShape.size(), rtShape.size());
    layout.m_out.assign(rank, 1);
    layout.m_refStep.assign(rank, 0);
    layout.m_rtStep.assign(rank, 0);
    const auto aStrides = rowMajorStrides(aShape);
    layout.m_broadcast = aShape.size() != rtShape.size();
    for (std::size_t k = 0; k < rank; ++k) {
        const std::size_t d = rank - 1 - k;
        const std::int64_t ad = k < aShape.size() ? aShape[aShape.size() - 1 - k] : 1;
        const std::int64_t bd = k < rtShape.size() ? rtShape[rtShape.size() - 1 - k] : 1;
        if (ad != bd && ad != 1 && bd != 1)
            return "shapes do not broadcast: reference dimension " + std::to_string(ad) +
                   " against runtime dimension " + std::to_string(bd);
        layout.m_broadcast = layout.m_broadcast || ad != bd;
        layout.m_out[d] = std::max(ad, bd);
        if (ad == 0 || bd == 0)
            layout.m_out[d] = 0;
        if (k < aShape.size() && ad != 1)
            layout.m_refStep[d] = aStrides[aShape.size() - 1 - k];
        if (k < rtShape.size() && bd != 1)
            layout.m_rtStep[d] = rtStridesRef[rtShape.size() - 1 - k];
    }
    for (auto e : layout.m_out)
        layout.m_total *= static_cast<std::uint64_t>(e);

    if (tf.dequantizes() && tf.axis) {
        if (*tf.axis < 0 || static_cast<std::size_t>(*tf.axis) >= rtShape.size())
            return "per-channel axis " + std::to_string(*tf.axis) + " is outside the tensor's rank";
        const auto channels = static_cast<std::size_t>(rtShape[static_cast<std::size_t>(*tf.axis)]);
        if (channels != tf.scale.size())
            return std::to_string(tf.scale.size()) + " per-channel scales for " + std::to_string(channels) +
                   " channels";
        // The channel axis counted in the compared (right-aligned) shape.
        layout.m_axisDim = rank - rtShape.size() + static_cast<std::size_t>(*tf.axis);
    }
    return layout;
}

bool ElementLayout::elementForElement(const Operand& reference, const Operand& runtime) const {
    return !m_broadcast && !reference.is_scalar && !runtime.is_scalar && reference.numel == m_total &&
           runtime.numel == m_total && reference.shape() == m_out;
}

ElementLayout::Position ElementLayout::at(std::uint64_t flat) const {
    Position p;
    for (std::size_t d = m_out.size(); d-- > 0;) {
        const auto extent = static_cast<std::uint64_t>(std::max<std::int64_t>(m_out[d], 1));
        const auto i = flat % extent;
        p.reference += i * m_refStep[d];
        p.runtime += i * m_rtStep[d];
        if (d == m_axisDim)
            p.channel = static_cast<std::size_t>(i);
        flat /= extent;
    }
    return p;
}

} // namespace gapscope
