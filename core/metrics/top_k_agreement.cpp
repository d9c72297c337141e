#include "core/metrics/top_k_agreement.h"

#include "core/etdump/element_decode.h"
#include "core/metrics/top_k.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gapscope {

TopKAgreement::TopKAgreement(const Operand& aot, const Operand& runtime, std::uint64_t total,
                             const std::vector<std::int64_t>& shape, const OperandTransform& tf)
    : m_aot(aot), m_runtime(runtime), m_tf(tf) {
    // A flat vector or a huge last dimension is not logits.
    if (aot.is_scalar || aot.numel != total || runtime.numel != total || tf.axis_order || shape.size() < 2 ||
        shape.back() < 2 || shape.back() > (1 << 20) || total == 0)
        return;
    const auto info = scalarTypeInfo(static_cast<std::int8_t>(aot.type));
    if (!info || !info->isFloatingPoint)
        return;
    // Per-channel logits (issue 56): each element dequantised with its own
    // channel's parameters, not channel 0's.
    if (tf.dequantizes() && tf.axis) {
        if (*tf.axis < 0 || static_cast<std::size_t>(*tf.axis) >= shape.size() ||
            tf.scale.size() != static_cast<std::size_t>(shape[static_cast<std::size_t>(*tf.axis)]) ||
            tf.zero_point.size() != tf.scale.size())
            return; // the layout check says why elsewhere; nothing ranked on a guess
        m_axisStride = rowMajorStrides(shape)[static_cast<std::size_t>(*tf.axis)];
        m_axisSize = static_cast<std::uint64_t>(shape[static_cast<std::size_t>(*tf.axis)]);
    }
    m_row = static_cast<std::size_t>(shape.back());
    m_rows = total / m_row;
    m_k = std::min<std::size_t>(5, m_row);
    // float32 on both sides, undequantised and aligned: ranked in place.
    m_inPlace = aot.type == ScalarType::Float && runtime.type == ScalarType::Float && !tf.dequantizes() &&
                reinterpret_cast<std::uintptr_t>(aot.bytes.data) % 4 == 0 &&
                reinterpret_cast<std::uintptr_t>(runtime.bytes.data) % 4 == 0;
}

// One row's agreement from both sides' k best indices, best first: the same
// first, and the same set. A side's indices are distinct, so the sets are
// equal when each of a's is among b's (k² compares, no branch; two sorts of
// five were a tenth of ranking a short row).
void TopKAgreement::count(const std::size_t* a, const std::size_t* b) {
    m_top1 += a[0] == b[0] ? 1 : 0;
    std::size_t shared = 0;
    for (std::size_t i = 0; i < m_k; ++i) {
        bool found = false;
        for (std::size_t j = 0; j < m_k; ++j)
            found |= a[i] == b[j];
        shared += found ? 1 : 0;
    }
    m_top5 += shared == m_k ? 1 : 0;
}

void TopKAgreement::rankThrough(std::uint64_t end) {
    if (!m_inPlace)
        return;
    const std::uint64_t last = std::min(m_rows, end / m_row);
    const auto* a = reinterpret_cast<const float*>(m_aot.bytes.data);
    const auto* b = reinterpret_cast<const float*>(m_runtime.bytes.data);
    for (; m_next < last; ++m_next) {
        std::size_t ta[5], tb[5];
        const float* rowB = b + m_next * m_row;
        // The runtime's row is first checked against the reference's five:
        // one compare a value where they agree, instead of a ranking.
        if (!topKFloat(a + m_next * m_row, m_row, m_k, ta) ||
            (!isTopKFloat(rowB, m_row, ta, m_k, tb) && !topKFloat(rowB, m_row, m_k, tb))) {
            m_deferred.push_back(m_next);
            continue;
        }
        count(ta, tb);
    }
}

// A row holding a NaN, or of other dtypes: decoded, and ranked by the
// comparison sort that orders NaN as it always has.
void TopKAgreement::rankDecoded(std::uint64_t r) {
    // Scratch rows kept from row to row: every row of a tensor that is not
    // float32 on both sides comes here.
    auto& ra = m_decodedA;
    auto& rb = m_decodedB;
    ra.resize(m_row);
    rb.resize(m_row);
    m_aot.decode(r * m_row, m_row, ra.data());
    m_runtime.decode(r * m_row, m_row, rb.data());
    if (m_tf.dequantizes())
        for (std::size_t i = 0; i < rb.size(); ++i) {
            const std::uint64_t at = r * m_row + i;
            rb[i] = dequantize(m_tf, rb[i], m_axisSize ? (at / m_axisStride) % m_axisSize : 0);
        }
    std::size_t ta[5], tb[5];
    const bool nan = std::any_of(ra.begin(), ra.end(), [](double x) { return std::isnan(x); }) ||
                     std::any_of(rb.begin(), rb.end(), [](double x) { return std::isnan(x); });
    if (!nan) {
        topK(ra.data(), m_row, m_k, ta);
        topK(rb.data(), m_row, m_k, tb);
        count(ta, tb);
        return;
    }
    auto& ia = m_orderA;
    auto& ib = m_orderB;
    ia.resize(m_row);
    ib.resize(m_row);
    std::iota(ia.begin(), ia.end(), 0);
    std::iota(ib.begin(), ib.end(), 0);
    auto byA = [&](std::size_t x, std::size_t y) { return ra[x] > ra[y] || (ra[x] == ra[y] && x < y); };
    auto byB = [&](std::size_t x, std::size_t y) { return rb[x] > rb[y] || (rb[x] == rb[y] && x < y); };
    const auto k = static_cast<std::ptrdiff_t>(m_k);
    std::partial_sort(ia.begin(), ia.begin() + k, ia.end(), byA);
    std::partial_sort(ib.begin(), ib.begin() + k, ib.end(), byB);
    count(ia.data(), ib.data());
}

void TopKAgreement::finish(GapMetrics& m) {
    if (!wanted())
        return;
    rankThrough(m_rows * m_row);
    if (!m_inPlace)
        for (; m_next < m_rows; ++m_next)
            rankDecoded(m_next);
    for (const auto r : m_deferred)
        rankDecoded(r);
    m_deferred.clear();
    m.top1_agreement = static_cast<double>(m_top1) / static_cast<double>(m_rows);
    if (m_row >= 5)
        m.top5_agreement = static_cast<double>(m_top5) / static_cast<double>(m_rows);
}

} // namespace gapscope
