#include "core/compare/row_name.h"

#include <vector>

namespace gapscope {

namespace {

bool framing(const std::string& op) {
    return op.rfind("quantize_per_", 0) == 0 || op.rfind("dequantize_per_", 0) == 0;
}

} // namespace

const std::string& comparedOp(const std::vector<std::string>& ops) {
    static const std::string none;
    // QNN's graphs spell them quantized_decomposed_dequantize_per_tensor_default.
    for (auto it = ops.rbegin(); it != ops.rend(); ++it)
        if (it->find("quantize_per_") == std::string::npos)
            return *it;
    return ops.empty() ? none : ops.back();
}

std::string displayOpName(const ComparisonRow& row) {
    return displayOpName(row.id().aot_ops);
}

std::string displayOpName(const std::vector<std::string>& ops) {
    std::vector<const std::string*> computing;
    for (const auto& op : ops)
        if (!framing(op))
            computing.push_back(&op);
    if (computing.empty())
        return ops.empty() ? std::string() : ops.back();
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
