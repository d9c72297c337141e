#pragma once

#include "core/backends/tosa_run.h"
#include "core/etdump/etdump_model.h"

#include <cstdint>

namespace gapscope {

// A TOSA run as an ETDump of one execution would hold it, had the delegate
// logged its ops (docs/arm.md, section 3): one run of one DebugEvent per TOSA op,
// in graph order, on the delegate call's `instruction`, named by its TOSA tensor
// (delegate_debug_id_str, the key of the delegate map arm_delegate_map.h
// makes), its tensor read in place from tosa_run.safetensors, which stands as
// the debug buffer. The run is named after the TOSA graph it ran.
EtDump armRunEtDump(const TosaRun& run, std::int32_t instruction);

} // namespace gapscope
