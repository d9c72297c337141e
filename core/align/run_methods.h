#pragma once

#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gapscope {

// How well one method of the ETRecord explains one run of the ETDump. A run
// block carries no method name (every one is "Execute"), and each method numbers
// its instructions and debug handles from 0 and 1, so a run is told by its
// events: an instruction the method does not have, or an output whose element
// count differs from the edge-program node it maps to, speaks against it.
struct RunMethodFit {
    std::string method;
    std::size_t matched = 0;    // events whose instruction and output size fit
    std::size_t mismatched = 0; // events that cannot belong to this method
};

// The methods that fit the run, best first: those with the fewest mismatches,
// provided at least one event fits. Empty when the ETRecord holds fewer than
// two methods (there is nothing to tell apart) or no method fits.
std::vector<std::string> methodsFittingRun(const RunData& run, const EtRecord& etrecord);

// Every method's fit, in the ETRecord's method order (for messages).
std::vector<RunMethodFit> runMethodFits(const RunData& run, const EtRecord& etrecord);

// The program's methods (maps and edge programs), sorted.
std::vector<std::string> methodNames(const EtRecord& etrecord);
// Whether the program has more than one method.
bool isMultiMethod(const EtRecord& etrecord);

} // namespace gapscope
