#pragma once

#include "core/compare/comparison_options.h"
#include "core/compare/comparison_value.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gapscope {

// Which run of the ETDump a comparison reads. The first run with debug events,
// as ExecuTorch's Inspector takes it (a method-load block logs none); the last
// run when none has any.
std::size_t defaultRun(const EtDump& dump);

// The run planComparison compares, for `c.method`: the one asked for (with a
// warning when a multi-method program's run fits another method), else the
// method's first execution for a multi-method program (with a warning when it
// fits several, or none), else defaultRun. Fills `c.run_methods` for a
// multi-method program and adds the warnings to `c.warnings`.
std::size_t chooseRun(const EtDump& dump, const EtRecord* etrecord, const ComparisonOptions& options,
                      Comparison& c);

// 'a', 'b', 'c': names as messages list them.
std::string quotedNames(const std::vector<std::string>& names);

} // namespace gapscope
