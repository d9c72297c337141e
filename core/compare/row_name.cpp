#include "core/compare/row_name.h"

#include <vector>

namespace gapscope {

std::string displayOpName(const ComparisonRow& row) {
    std::vector<const std::string*> computing;
    for (const auto& op : row.id().aot_ops)
        if (op.rfind("quantize_per_", 0) != 0 && op.rfind("dequantize_per_", 0) != 0)
            computing.push_back(&op);
    if (computing.empty())
        return row.id().aot_ops.empty() ? std::string() : row.id().aot_ops.back();
    if (computing.size() == 1)
        return *computing.front();
    return *computing.front() + " … " + *computing.back();
}

std::string summarisedOpNames(const ComparisonRow& row) {
    const std::string name = displayOpName(row);
    return row.id().aot_ops.size() > 1 ? name + ", " + std::to_string(row.id().aot_ops.size()) + " ops"
                                       : name;
}

} // namespace gapscope
