#include "core/backends/backend_conventions.h"

namespace gapscope {

// ExecuTorch's Arm TOSA delegate (backends/arm, ExecuTorch 1.5.1), read from a
// TOSA run (core/backends/backend_run.h; docs/arm.md). Its tensors' layouts
// are known op by op from the graph (arm_layout.h) and set on the rows, so no
// rank is refused for want of one.
const BackendConventions& armConventions() {
    static const BackendConventions kArm{
        "TOSABackend",
        "Arm TOSA",
        false,
        "",
        // arm_delegate_map gives each node's (or group's) last TOSA op its
        // handles; the ops before it have none.
        "a TOSA op inside a node's lowering (a TRANSPOSE to channels-last, a CONV2D's INT32 accumulator "
        "before its RESCALE): only the node's last op is its output",
        0,
        0,
        "",
        "gapscope_capture.tosa_run (docs/arm.md)",
        "",
        "",
        // Its runs are TOSA runs, which ExecuTorch's Inspector cannot read.
        false,
    };
    return kArm;
}

// ExecuTorch's Arm Ethos-U delegate: Vela's command stream for the NPU, read
// from a TOSA run of the graph Vela compiled (the same route and rules).
const BackendConventions& ethosUConventions() {
    static const BackendConventions kEthosU = [] {
        BackendConventions c = armConventions();
        c.backend = "EthosUBackend";
        c.label = "Arm Ethos-U";
        return c;
    }();
    return kEthosU;
}

} // namespace gapscope
