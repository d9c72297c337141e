#pragma once

#include "core/backends/tosa_run.h"
#include "core/etdump/etdump_model.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace gapscope {

// The TOSA runs of one execution's delegate calls as an ETDump would hold them,
// had the delegates logged their ops (docs/arm.md, section 3): one run, in call
// order, of one DebugEvent per TOSA op in graph order, on its delegate call's
// instruction, named by its TOSA tensor (delegate_debug_id_str, the key of the
// delegate map arm_delegate_map.h makes), its tensor read in place from
// tosa_run.safetensors, which stands as the debug buffer. The run is named
// after the TOSA graphs it ran.
EtDump armRunEtDump(const std::vector<std::pair<const TosaRun*, std::int32_t>>& calls);

} // namespace gapscope
