#include "core/compare/comparison_row.h"

namespace gapscope {

namespace {

std::vector<std::string> textsOf(const std::vector<ElementPlan>& plans, std::string ElementPlan::*text) {
    std::vector<std::string> out;
    out.reserve(plans.size());
    for (const auto& e : plans)
        out.push_back(e.*text);
    return out;
}

} // namespace

std::vector<std::string> RowIdentity::shapes() const {
    return textsOf(plans, &ElementPlan::shape);
}

std::vector<std::string> RowIdentity::dtypes() const {
    return textsOf(plans, &ElementPlan::dtype);
}

const RowIdentity& ComparisonRow::id() const {
    static const RowIdentity none;
    return identity ? *identity : none;
}

} // namespace gapscope
