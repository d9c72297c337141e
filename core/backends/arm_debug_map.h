#pragma once

#include "core/common/field_path.h"
#include "core/common/result.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// One entry of the Arm backend's debug schema (backends/arm/debug/schema.py,
// DebugSchema), as ExecuTorch puts it in each non-constant TOSA op's location
// (dump_debug_info(DebugMode.TOSA)) and a TOSA run holds it, or as
// DebugMode.JSON writes a list of them into debug.json: a non-constant TOSA op
// and the ATen node it was lowered from (docs/arm.md).
struct ArmDebugEvent {
    std::int64_t event_id = 0;
    std::string tosa_tensor; // tosa_info.node_name: the op's output tensor, TOSA's name for it
    std::string tosa_op;     // tosa_info.operator_name without TOSA's "Op." ("CONV2D")
    std::string aten_node;   // aten_info.node_name: the node as lowered (after the Arm passes)
    std::string aten_op;     // aten_info.operator_name ("tosa.CONV2D.default")
    // torch_info.node_trace: the nodes this op's node came from, newest first
    // (the schema pops torch.fx's from_node chain depth first), back to the
    // node of the first program exported; a node seen again in the next
    // graph under the same name and target is kept once. A model quantised
    // with PT2E is exported twice, so the trace crosses both programs: the
    // ETRecord's exported program is the newer one (arm_delegate_map).
    struct TraceNode {
        std::string name, target; // "conv2d", "aten.conv2d.default"
        bool operator==(const TraceNode& o) const { return name == o.name && target == o.target; }
    };
    std::vector<TraceNode> trace;
    std::vector<std::string> stack_trace; // torch_info.stack_trace, line by line

    // The oldest node of the trace (the first export's), or the node as lowered
    // when there is no trace: for messages.
    const std::string& oldest() const { return trace.empty() ? aten_node : trace.back().name; }
};

struct ArmDebugMap {
    std::string path;
    std::vector<ArmDebugEvent> events; // in the file's order
};

// Reads debug.json's text (`path` names it in errors). Every entry must be an
// object with the fields above of the types the schema writes; an error names
// the entry and the field ("[3].tosa_info.node_name"). A node_trace that is a
// string (the schema's "No node trace available.") leaves the trace empty.
// Larger than kMaxArmDebugMapBytes, or nested deeper than the schema's few
// levels, is refused before it is parsed.
Result<ArmDebugMap> readArmDebugMap(std::string_view text, const std::string& path);

// The same for entries already parsed as part of a larger document (a TOSA
// run's `debug` list): fields are named from `at`, and a fault throws
// JsonFault (core/common/json_fault.h) for the caller to place in its file.
std::vector<ArmDebugEvent> readArmDebugEntries(const nlohmann::json& entries, const FieldPath& at);

constexpr std::size_t kMaxArmDebugMapBytes = 256u << 20;

} // namespace gapscope
