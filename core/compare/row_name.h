#pragma once

#include "core/compare/comparison.h"

#include <string>

namespace gapscope {

// The name a row goes by in the chart, the status bar, the CLI's gate messages
// and the coverage list: the last op of its group that computes something
// (quantize/dequantize pairs only frame it), else its last op.
std::string displayOpName(const ComparisonRow& row);

} // namespace gapscope
