#pragma once

#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gapscope {

// Which method of a multi-method program each ETDump run is. A run block
// carries no method name (every one is "Execute"), and each method numbers its
// instructions and debug handles from 0 and 1, so a run is told by its events:
// an instruction the method does not have, or an output whose element count
// differs from the edge-program node it maps to, speaks against the method.
//
// Per run, the methods that fit, best first: those with the fewest mismatches,
// provided more events fit than not. Empty for a run no method fits (a load
// block without debug events), and for every run when the ETRecord holds fewer
// than two methods (there is nothing to tell apart).
std::vector<std::vector<std::string>> methodsFittingRuns(const EtDump& dump, const EtRecord& etrecord);

// The program's methods (maps and edge programs), sorted.
std::vector<std::string> methodNames(const EtRecord& etrecord);
// Whether the program has more than one method.
bool isMultiMethod(const EtRecord& etrecord);

} // namespace gapscope
