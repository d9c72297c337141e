#pragma once

#include "core/compare/comparison_value.h"
#include "core/compare/metric_catalog.h"

#include <cstddef>
#include <vector>

namespace gapscope {

// What fails a CI gate (`--fail-above METRIC=VALUE`, `--fail-on-invalid`), by the
// first divergence's rule (crossesThreshold): a row or program output compared
// element for element, not in exact agreement, past the value. A comparison with
// nothing compared fails every gate there is. The CLI says each on stderr and
// exits 3; other front ends read the same list.
struct GateFailure {
    enum class Kind { NothingCompared, Row, ProgramOutput, InvalidRow };
    Kind kind = Kind::NothingCompared;
    std::size_t index = 0; // the row's or the program output's
    MetricThreshold gate;  // Row, ProgramOutput: the gate tripped
    double value = 0;      // Row, ProgramOutput: the metric's value
};

std::vector<GateFailure> gateFailures(const Comparison& c, const std::vector<MetricThreshold>& gates,
                                      bool failOnInvalid);

} // namespace gapscope
