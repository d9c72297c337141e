#include "core/compare/reference_probe.h"

#include <algorithm>

namespace gapscope {

ReferenceProbe probeReferences(const std::vector<ElementPlan>& plans) {
    std::vector<const Operand*> operands;
    ReferenceProbe probe;
    for (const auto& plan : plans) {
        if (!plan.measurable() || plan.reference.is_scalar)
            return {}; // a probe of some outputs only would pair unlike rows
        operands.push_back(&plan.reference);
        probe.elements += plan.reference.numel;
    }
    if (probe.elements == 0)
        return {};
    const std::uint64_t count = std::min<std::uint64_t>(probe.elements, kReferenceProbeSize);
    std::size_t at = 0;
    std::uint64_t before = 0; // elements of the operands before operands[at]
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t flat = i * probe.elements / count;
        while (flat >= before + operands[at]->numel)
            before += operands[at++]->numel;
        double v = 0;
        operands[at]->decode(flat - before, 1, &v);
        probe.values.push_back(v);
    }
    return probe;
}

} // namespace gapscope
