#include "core/compare/row_plan.h"

namespace gapscope {

const std::vector<ElementPlan>& RowPlan::elements() const {
    static const std::vector<ElementPlan> none; // a plan built by hand, with no identity
    return identity ? identity->plans : none;
}

} // namespace gapscope
