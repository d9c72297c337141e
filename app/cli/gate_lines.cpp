#include "app/cli/gate_lines.h"

#include "core/compare/gates.h"
#include "core/compare/row_name.h"
#include "core/report/text_format.h"

#include <sstream>

namespace gapscope {

int sayGateFailures(std::ostream& out, const Comparison& c, const std::vector<MetricThreshold>& gates,
                    bool failOnInvalid) {
    const auto failures = gateFailures(c, gates, failOnInvalid);
    for (const auto& f : failures) {
        std::ostringstream gate; // as given: snr=20
        gate << metricName(f.gate.metric) << "=" << f.gate.value;
        switch (f.kind) {
        case GateFailure::Kind::NothingCompared: out << "gate failed: nothing was compared\n"; break;
        case GateFailure::Kind::Row:
            out << "gate " << gate.str() << " tripped by row " << f.index << " ("
                << displayOpName(c.rows[f.index]) << "): " << number(f.value) << '\n';
            break;
        case GateFailure::Kind::ProgramOutput:
            out << "gate " << gate.str() << " tripped by program output " << f.index << ": "
                << number(f.value) << '\n';
            break;
        case GateFailure::Kind::InvalidRow:
            out << "row " << f.index << " is an invalid comparison: " << c.rows[f.index].reason << '\n';
            break;
        }
    }
    return static_cast<int>(failures.size());
}

} // namespace gapscope
