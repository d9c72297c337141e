#include "core/compare/gates.h"

#include "core/compare/findings.h"

namespace gapscope {

std::vector<GateFailure> gateFailures(const Comparison& c, const std::vector<MetricThreshold>& gates,
                                      bool failOnInvalid) {
    std::vector<GateFailure> failures;
    // Said among the comparison's warnings (completeSession); here it fails the gates.
    if (!comparedAnything(c) && (!gates.empty() || failOnInvalid))
        failures.push_back({GateFailure::Kind::NothingCompared, 0, {}, 0});
    for (const auto& gate : gates) {
        for (const auto& row : c.rows)
            if (crossesThreshold(row, gate))
                failures.push_back({GateFailure::Kind::Row, row.index, gate, *rowMetric(row, gate.metric)});
        // The program's outputs are what ships: a gate holds for them too.
        for (const auto& out : c.outputs)
            if (crossesThreshold(out, gate))
                failures.push_back({GateFailure::Kind::ProgramOutput, out.index, gate,
                                    *metricValue(*out.metrics, gate.metric)});
    }
    if (failOnInvalid)
        for (const auto& row : c.rows)
            if (row.status == RowStatus::Invalid)
                failures.push_back({GateFailure::Kind::InvalidRow, row.index, {}, 0});
    return failures;
}

} // namespace gapscope
