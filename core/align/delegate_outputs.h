#pragma once

#include "core/capture/aot_capture.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/etrecord/export_graph.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gapscope {

// The debug handles of a delegate call's outputs, in the order the delegate
// returns them, derived from the program (issue 23).
//
// An ETRecord made from the lowered program keeps each delegate's module on its
// call node (LoweredModule): its graph outputs are the return order, exactly.
// Otherwise (the ETRecord of to_edge_transform_and_lower(generate_etrecord=True)
// holds the program before delegation) the order is derived:
// The partitioner makes a lowered module's outputs the partition's nodes whose
// results are read outside it, in the node order of the graph at the moment the
// partition is cut (ExecuTorch's lowered_backend_module.py and fuser_utils.py).
// Every cut re-sorts the whole graph (an unstable topological sort), so that order
// is not the saved edge program's: a RoPE decoder's delegate returns RMSNorm's
// `pow` first although the saved graph has it last. The order survives in the
// ETRecord's debug_handle_map: the delegate call's handle list is the lowered
// module's nodes in that very order. So:
//   1. members: the edge program's nodes carrying the list's handles, as many as
//      the list has places for each; a handle also carried by nodes outside the
//      delegate (a decomposition split across partitions) is given to the nodes
//      adjacent to members, and more candidates than places is "unknown";
//      but a handle whose nodes form one chain (each depends on the one before, as
//      a weight norm's pow, sum, pow, div and mul do) is handed out along the
//      chain in program order: the instructions before the call took its first
//      places (HandleSpread), for a chain runs in its order whatever the cut;
//   2. each member takes the place of its handle's occurrence in the list;
//   3. the outputs are the members read outside the group (or graph outputs), by
//      place; a member with several such results, or a count other than the
//      call's outputs, is "unknown".
struct DelegateOutputOrder {
    std::vector<std::int64_t> handles; // one per output, in return order, when known
    std::string problem;               // why the order could not be established
    std::string source;                // where the order was read: the lowered module, or derived
    bool known() const { return problem.empty(); }
};

// How the places of a delegate call's handles are spread over its method's
// instructions: a kernel call takes one place of its handle, a delegate call one
// per occurrence in its list (Wav2Vec2's weight norm: handle 21 in two delegate
// calls and two kernel calls, issue 54).
struct HandleSpread {
    std::map<std::int64_t, std::size_t> before; // in the instructions before the call
    std::map<std::int64_t, std::size_t> total;  // in all of them
};
HandleSpread handleSpread(const MethodMaps& maps, std::int64_t instruction,
                          const std::vector<std::int64_t>& placesList);

// `placesList`: debug_handle_map[instruction] (handles in the list's order, with
// repeats); `outputs`: the call's output count (instruction_id_to_num_outs_map);
// `spread`: where the call's handles also appear (null: unknown).
DelegateOutputOrder delegateOutputOrder(const ExportGraph& edgeProgram,
                                        const std::vector<std::int64_t>& placesList, std::size_t outputs,
                                        const HandleSpread* spread = nullptr);

// Which op of a delegated group a delegate output is (the output in return place
// `place`), by the delegate's return order; where that is unknown, the one op of
// the group whose reference has the logged tensor's element count. `why`: the
// output cannot be paired (the order is in doubt, or several ops have its size).
struct DelegatePick {
    const CaptureRecord* record = nullptr; // null: keep ExecuTorch's positional pair
    std::string how;
    std::string why;
};

DelegatePick pickDelegateOutput(const DelegateOutputOrder& order, std::size_t place,
                                const std::map<std::vector<std::int64_t>, const CaptureRecord*>& group,
                                const AotCapture& capture, const Tensor& logged);

} // namespace gapscope
