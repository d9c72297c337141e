#pragma once

#include "core/etdump/etdump_model.h"

#include <ostream>

namespace gapscope {

// Human-readable listing of every run and event, one line per event (tensor lists
// one line per tensor), in the style of the fixtures' README listings.
void writeEtdumpText(std::ostream& out, const EtDump& dump);

} // namespace gapscope
