#include "core/compare/row_name.h"

namespace gapscope {

std::string displayOpName(const ComparisonRow& row) {
    for (auto it = row.aot_ops.rbegin(); it != row.aot_ops.rend(); ++it)
        if (it->rfind("quantize_per_", 0) != 0 && it->rfind("dequantize_per_", 0) != 0)
            return *it;
    return row.aot_ops.empty() ? std::string() : row.aot_ops.back();
}

} // namespace gapscope
