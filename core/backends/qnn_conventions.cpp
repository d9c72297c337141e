#include "core/backends/backend_conventions.h"

namespace gapscope {

// ExecuTorch's Qualcomm delegate (backends/qualcomm, ExecuTorch 1.5.1), and the
// QNN debugger's conventions (docs/qnn.md).
const BackendConventions& qnnConventions() {
    static const BackendConventions kQnn{
        "QnnBackend",
        "QNN",
        // qnn_preprocess.py maps only nodes with one QNN tensor; the tensors of
        // split, topk and other multi-output nodes are named "<node>@<idx>", and a
        // graph output "output_<node>@<idx>" (builders/node_visitor.py).
        true,
        "output_",
        "a tensor QNN added while lowering (input quantize, layout permute or graph output): its "
        "delegate_map gives it no debug handle and the reference graph has no node for it",
        // LayoutTransform moves channels last for ranks 3 to 5; a capture of a
        // serialised ETRecord cannot tell which tensors it moved.
        3,
        5,
        // The edge program after QNN's passes: QNNIntermediateDebugger's reference graph.
        "edge_after_transform/forward",
        "gapscope_capture.capture.capture_from_qnn_debugger",
        // profile_level=2: each op's time in the HTP's cycles, "<node>:OpId_<n> (cycles)".
        ":OpId_",
        "cycles",
        true,
    };
    return kQnn;
}

} // namespace gapscope
