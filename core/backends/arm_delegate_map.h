#pragma once

#include "core/backends/arm_debug_map.h"
#include "core/capture/aot_capture.h"
#include "core/etrecord/etrecord_model.h"

#include <string>
#include <vector>

namespace gapscope {

// The delegate map ExecuTorch's Arm backend leaves empty in the ETRecord
// ({"name": "TOSABackend", "delegate_map": null}), made from its debug map:
// the last TOSA op lowered from a node (in graph order) → the debug handle of
// the AOT capture's row whose ops name that node (the op's origin; docs/arm.md,
// section 3). A node's last op is its output: a convolution is TRANSPOSE,
// CONV2D, (RESCALE,) TRANSPOSE, and ExecuTorch's Inspector keeps the first
// event of a handle within one instruction, so mapping every op would compare
// the convolution with its input's transpose. The ops before it are the
// node's inside (`inside`), tensors with no handle of their own.
struct ArmDelegateMap {
    // Backend "TOSABackend"; the identifiers in the debug map's order. The ids
    // are strings, so ExecuTorch's resolver ends at the exact key before its
    // substring rule could give "tosa_transpose_default_1" the key
    // "tosa_transpose_default" (debug_handle_resolver.cpp).
    DelegateMapping mapping;
    // The TOSA tensors no row of the capture names the origin of, each with why.
    std::vector<std::pair<std::string, std::string>> unmapped;
    // The ops before each node's last one: TOSA tensor → its node.
    std::vector<std::pair<std::string, std::string>> inside;
};

constexpr const char* kArmTosaBackend = "TOSABackend";

ArmDelegateMap armDelegateMap(const ArmDebugMap& map, const AotCapture& capture);

} // namespace gapscope
