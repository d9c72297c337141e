#include "core/compare/element_reader.h"

#include "core/etdump/element_decode.h"

#include <algorithm>
#include <cmath>

namespace gapscope {

std::optional<ElementReader> ElementReader::of(const ElementPlan& plan) {
    const Operand& ref = plan.reference;
    const Operand& rt = plan.runtime;
    if (!plan.measurable() || ref.is_scalar || rt.is_scalar || ref.numel != rt.numel)
        return std::nullopt;
    const auto& order = plan.options.runtime_transform.axis_order;
    const std::size_t rank = rt.shape.size();
    if (ref.shape.size() != rank || (order && order->size() != rank))
        return std::nullopt;
    const auto rtStrides = rowMajorStrides(rt.shape);
    ElementReader reader(plan);
    reader.m_runtimeStride.assign(rank, 0);
    for (std::size_t j = 0; j < rank; ++j) {
        // runtime = reference.permute(order): runtime dim j is reference dim order[j].
        const auto refDim = order ? static_cast<std::size_t>((*order)[j]) : j;
        if (refDim >= rank || ref.shape[refDim] != rt.shape[j])
            return std::nullopt;
        reader.m_runtimeStride[refDim] = rtStrides[j];
    }
    return reader;
}

std::uint64_t ElementReader::runtimeIndex(std::uint64_t flat) const {
    const auto& shape = m_plan->reference.shape;
    std::uint64_t at = 0;
    for (std::size_t d = shape.size(); d-- > 0;) {
        const auto extent = static_cast<std::uint64_t>(std::max<std::int64_t>(shape[d], 1));
        at += (flat % extent) * m_runtimeStride[d];
        flat /= extent;
    }
    return at;
}

double ElementReader::reference(std::uint64_t flat) const {
    double v = 0;
    m_plan->reference.decode(flat, 1, &v);
    return v;
}

double ElementReader::runtimeRaw(std::uint64_t flat) const {
    double v = 0;
    m_plan->runtime.decode(runtimeIndex(flat), 1, &v);
    return v;
}

double ElementReader::runtime(std::uint64_t flat) const {
    const auto& tf = m_plan->options.runtime_transform;
    const double raw = runtimeRaw(flat);
    if (!tf.dequantizes())
        return raw;
    std::size_t channel = 0;
    if (tf.axis) {
        const auto& shape = m_plan->reference.shape;
        const auto axis = static_cast<std::size_t>(*tf.axis);
        std::uint64_t inner = 1;
        for (std::size_t d = axis + 1; d < shape.size(); ++d)
            inner *= static_cast<std::uint64_t>(std::max<std::int64_t>(shape[d], 1));
        channel = static_cast<std::size_t>(
            (flat / inner) % static_cast<std::uint64_t>(std::max<std::int64_t>(shape[axis], 1)));
    }
    return dequantize(tf, raw, channel);
}

std::int64_t ElementReader::channelAxis() const {
    const auto& tf = m_plan->options.runtime_transform;
    if (tf.dequantizes() && tf.axis)
        return *tf.axis;
    return shape().size() >= 2 ? 1 : 0;
}

std::vector<ElementDifference> largestDifferences(const ElementReader& reader, std::size_t n,
                                                  const std::atomic<bool>* cancelled) {
    struct Entry {
        double absDiff;
        std::uint64_t at;
        double a, b;
    };
    // A min-heap of the n largest |d| seen so far.
    auto smaller = [](const Entry& x, const Entry& y) { return x.absDiff > y.absDiff; };
    std::vector<Entry> heap;
    for (std::uint64_t i = 0; i < reader.numel() && n > 0; ++i) {
        if (cancelled && i % 65536 == 0 && cancelled->load(std::memory_order_relaxed))
            return {};
        const double a = reader.reference(i), b = reader.runtime(i);
        const double d = std::fabs(a - b);
        if (std::isnan(d))
            continue;
        if (heap.size() < n) {
            heap.push_back({d, i, a, b});
            std::push_heap(heap.begin(), heap.end(), smaller);
        } else if (d > heap.front().absDiff) {
            std::pop_heap(heap.begin(), heap.end(), smaller);
            heap.back() = {d, i, a, b};
            std::push_heap(heap.begin(), heap.end(), smaller);
        }
    }
    std::sort_heap(heap.begin(), heap.end(), smaller);
    std::vector<ElementDifference> out;
    for (const auto& e : heap)
        out.push_back({unravelIndex(e.at, reader.shape()), e.a, e.b, e.a - e.b});
    return out;
}

} // namespace gapscope
