#pragma once

#include "core/backends/arm_debug_map.h"
#include "core/backends/tosa_run.h"
#include "core/capture/aot_capture.h"
#include "core/etrecord/etrecord_model.h"
#include "core/etrecord/export_graph.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// The delegate map ExecuTorch's Arm backend leaves empty in the ETRecord
// ({"name": "TOSABackend", "delegate_map": null}), made from its debug map and
// the TOSA run (docs/arm.md, "How TOSA ops become rows"):
//
// 1. Each TOSA op belongs to the capture's row whose ops name the newest node
//    of its trace that is a node of the reference graph (same name and
//    target). An op whose trace names only nodes the Arm passes made (a
//    TABLE for a GELU) belongs to the row its neighbours are in, or to the one
//    node of the graph with no op of its own that lies between them.
// 2. Rows become groups, compared as one, where the TOSA graph does not follow
//    the reference graph:
//    - a row with no TOSA op of its own and the shape of the row before it
//      was folded into that row's ops (INT's ReLU, into the convolution's
//      RESCALE);
//    - two rows whose ops a pass reordered (FP's flatten RESHAPE before the
//      ReLU's CLAMP) are one group.
// 3. A group's last TOSA op (in graph order) is its output: it maps to the
//    handles of all the group's rows, as a delegate maps a fused op, so that
//    ExecuTorch's rules compare it with the group's last row. ExecuTorch's
//    Inspector keeps the first event of a handle within one instruction, so
//    the ops before it (`inside`: TRANSPOSE, CONV2D's INT32 accumulator) get no
//    handle.
// 4. Its layout against torch's (arm_layout.h) goes on the rows as the
//    capture's axis_order, or, where it cannot be told, as why the row cannot
//    be compared.
struct ArmDelegateMap {
    // Backend "TOSABackend"; the identifiers in graph order. The ids are
    // strings, so ExecuTorch's resolver ends at the exact key before its
    // substring rule could give "tosa_transpose_default_1" the key
    // "tosa_transpose_default" (debug_handle_resolver.cpp).
    DelegateMapping mapping;
    // TOSA tensors that belong to no row, each with why.
    std::vector<std::pair<std::string, std::string>> unmapped;
    // The ops before each group's last one: TOSA tensor → its row's node.
    std::vector<std::pair<std::string, std::string>> inside;
    // Per record of the capture (its index): the axis order its TOSA tensor
    // is in, where it is not torch's; or why its tensor cannot be compared.
    std::map<std::size_t, std::vector<std::int64_t>> axis_orders;
    std::map<std::size_t, std::string> runtime_problems;
    // Each group of more than one row and why, for the comparison's notes.
    std::vector<std::string> notes;
};

// `graph`: the ETRecord graph the capture is keyed by (null when the ETRecord
// has none: then nodes are matched by name alone and no reordering is found,
// which the notes say). `delegateHandles`: the handles the ETRecord's
// debug_handle_map gives the delegate call (null: every row may be inside it).
// `naming`: a capture of the ETRecord's own graph, whose op names are its
// nodes', when `capture` is another model's under the same handles (a float
// reference): nodes are tied to handles through it, so the rows are the same
// whichever reference is compared. Null: `capture` names them.
ArmDelegateMap armDelegateMap(const TosaRun& run, const AotCapture& capture, const ExportGraph* graph,
                              const std::vector<std::int64_t>* delegateHandles,
                              const AotCapture* naming = nullptr);

} // namespace gapscope
