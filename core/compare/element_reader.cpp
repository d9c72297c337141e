#include "core/compare/element_reader.h"

#include "core/etdump/element_decode.h"

#include <algorithm>
#include <cmath>
#include <variant>

namespace gapscope {

std::optional<ElementReader> ElementReader::of(const ElementPlan& plan, const GapMetrics* measured) {
    if (!plan.measurable())
        return std::nullopt;
    auto layout = ElementLayout::of(plan.reference, plan.runtime, plan.options.runtime_transform);
    const auto* l = std::get_if<ElementLayout>(&layout);
    if (!l || !l->elementForElement(plan.reference, plan.runtime))
        return std::nullopt;
    bool fixReference = false, fixRuntime = false;
    if (measured) {
        fixReference = measured->nan_aot > 0;
        fixRuntime = measured->nan_runtime > 0;
    } else {
        fixReference = countNonFinite(plan.reference, plan.options.threads, nullptr).nan > 0;
        fixRuntime = countNonFinite(plan.runtime, plan.options.threads, nullptr).nan > 0;
    }
    return ElementReader(plan, std::move(*l), ElementRule(plan.options, fixReference, fixRuntime));
}

std::uint64_t ElementReader::runtimeIndex(std::uint64_t flat) const {
    return m_layout.at(flat).runtime;
}

double ElementReader::reference(std::uint64_t flat) const {
    double v = 0;
    m_plan->reference.decode(flat, 1, &v);
    return m_rule.reference(v);
}

double ElementReader::runtimeRaw(std::uint64_t flat) const {
    double v = 0;
    m_plan->runtime.decode(runtimeIndex(flat), 1, &v);
    return v;
}

double ElementReader::runtime(std::uint64_t flat) const {
    const auto at = m_layout.at(flat);
    double q = 0;
    m_plan->runtime.decode(at.runtime, 1, &q);
    return m_rule.runtime(q, at.channel);
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
