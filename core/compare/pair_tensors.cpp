#include "core/compare/pair_tensors.h"

#include "core/metrics/operand.h"

#include <cmath>

namespace gapscope {

namespace {

// Why one side has nothing to read, or "" when it has.
std::string sideProblem(const char* side, const ComparisonRow* row, const RowElement& e,
                        const std::optional<ElementReader>& reader) {
    const std::string name(side);
    if (!row)
        return name == "A" ? "Only in B: A has no partner for this row"
                           : "Only in A: B has no partner for this row";
    if (!e.plan)
        return name + " compared nothing for this row (" + row->reason + ")";
    if (!e.plan->measurable())
        return name + " has no runtime tensor to show (" + e.plan->reason + ")";
    if (!reader)
        return name +
               "'s runtime tensor does not map element for element onto its reference (a broadcast or a "
               "scalar)";
    return {};
}

} // namespace

RowElement rowElement(const ComparisonRow& row, std::size_t element) {
    const auto& plans = row.elementPlans();
    RowElement e;
    if (element < plans.size())
        e.plan = &plans[element];
    const bool aligned = row.measured && row.gaps.size() == plans.size();
    if (aligned && element < row.gaps.size())
        e.measured = &row.gaps[element];
    return e;
}

PairTensors pairTensors(const ComparisonRow* a, const ComparisonRow* b, std::size_t element) {
    PairTensors p;
    const RowElement ea = a ? rowElement(*a, element) : RowElement{};
    const RowElement eb = b ? rowElement(*b, element) : RowElement{};
    if (ea.plan)
        p.a = ElementReader::of(*ea.plan, ea.measured);
    if (eb.plan)
        p.b = ElementReader::of(*eb.plan, eb.measured);
    for (auto problem : {sideProblem("A", a, ea, p.a), sideProblem("B", b, eb, p.b)})
        if (p.problem.empty())
            p.problem = problem;
    if (!p.problem.empty())
        return p;
    // 1x16x32 against 16x32: the same elements in the same order (a backend
    // that drops a size-1 dimension), so one tensor, shown in A's shape.
    if (withoutOnes(p.a->shape()) != withoutOnes(p.b->shape())) {
        p.problem = "A compares " + shapeText(p.a->shape()) + " and B " + shapeText(p.b->shape()) +
                    ": not one tensor, so there is no element-wise difference";
        return p;
    }
    p.shape = p.a->shape();
    return p;
}

std::optional<PairDifference> measurePairDifference(const PairTensors& pair,
                                                    const std::atomic<bool>* cancelled) {
    if (!pair.problem.empty() || !pair.a || !pair.b)
        return std::nullopt;
    const ElementReader& a = *pair.a;
    const ElementReader& b = *pair.b;
    PairDifference d;
    d.elements = a.numel();
    double sum = 0;
    std::uint64_t counted = 0;
    for (std::uint64_t i = 0; i < d.elements; ++i) {
        if (cancelled && i % 65536 == 0 && cancelled->load(std::memory_order_relaxed))
            return std::nullopt;
        const double r = std::fabs(b.reference(i) - a.reference(i));
        if (r > d.reference_max_abs) // false for NaN (∞ − ∞): such an element has no finite gap
            d.reference_max_abs = r;
        const double va = a.runtime(i), vb = b.runtime(i);
        const double diff = vb - va;
        if (std::isnan(diff) || std::isinf(diff)) {
            d.non_finite += va != vb;
            continue;
        }
        d.differing += diff != 0;
        const double m = std::fabs(diff);
        if (m > d.max_abs)
            d.max_abs = m, d.max_at = i;
        sum += diff * diff;
        ++counted;
    }
    d.rms = counted ? std::sqrt(sum / static_cast<double>(counted)) : 0;
    return d;
}

} // namespace gapscope
