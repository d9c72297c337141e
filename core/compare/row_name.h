#pragma once

#include "core/compare/comparison_value.h"

#include <string>
#include <vector>

namespace gapscope {

// The name a row goes by in the chart, the graph, the status bar, the report,
// the CLI's gate messages and the coverage list: the ops of its group that
// compute something (quantize/dequantize pairs only frame them), the first and
// the last when there are several ("conv2d … reshape": the group starts at
// conv2d and its compared output is reshape's), else its last op. The table
// lists every op.
std::string displayOpName(const ComparisonRow& row);
std::string displayOpName(const std::vector<std::string>& aotOps);
// The op whose output a row compares: its last op that computes something (a
// fused group's output dequantize only frames it); "" for a row of no op.
const std::string& comparedOp(const std::vector<std::string>& aotOps);
// displayOpName, and how many ops the row stands for when it is more than one
// ("conv2d … linear_1, 31 ops"): a delegate row of 361 ops in one line.
std::string summarisedOpNames(const ComparisonRow& row);

} // namespace gapscope
