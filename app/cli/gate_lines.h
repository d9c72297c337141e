#pragma once

#include "core/compare/comparison_value.h"
#include "core/compare/metric_catalog.h"

#include <ostream>
#include <vector>

namespace gapscope {

// The gates that fail (core's gateFailures), one line each on `out`, as
// `compare --fail-above` and `--fail-on-invalid` say them. Returns how many.
int sayGateFailures(std::ostream& out, const Comparison& c, const std::vector<MetricThreshold>& gates,
                    bool failOnInvalid);

} // namespace gapscope
