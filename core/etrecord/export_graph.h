#pragma once

#include "core/common/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One call_function node of a serialized torch.export graph (ExecuTorch's copy of
// the torch.export JSON schema; shared/formats/executorch-artifacts.md §4.5).
// What an executorch_call_delegate node of a lowered program says of its
// delegate (the lowered module, serialized as a string argument of the node):
// the debug handles of the module's own nodes, and per output, in the order the
// delegate returns them, the handles of the node producing it.
struct LoweredModule {
    std::vector<std::int64_t> node_handles;
    std::vector<std::vector<std::int64_t>> output_handles;
};

struct GraphNode {
    std::string name;   // FX node name: the "op name" ExecuTorch reports
    std::string target; // e.g. executorch.exir.dialects.edge.ops.aten.relu.default
    // metadata.debug_handle; empty when absent, "" or "0". A list handle keeps its order.
    std::vector<std::int64_t> debug_handles;
    std::optional<std::string> stack_trace;
    std::optional<std::string> from_node;    // raw JSON string of the provenance chain
    std::vector<std::string> input_tensors;  // tensor names consumed (producer edges)
    std::vector<std::string> output_tensors; // tensor names produced, in output order
    std::optional<LoweredModule> lowered;    // an executorch_call_delegate node's delegate
};

struct ExportGraph {
    std::string key; // the ETRecord entry it came from
    std::vector<GraphNode> nodes;
    std::vector<std::string> graph_inputs;  // placeholder tensor names, in order
    std::vector<std::string> graph_outputs; // tensor names returned, in order
    // graph.tensor_values: each tensor's sizes; a symbolic size is -1.
    std::map<std::string, std::vector<std::int64_t>> tensor_sizes;
    std::optional<int> schema_major;
    // The buffers the program mutates (signature.output_specs' buffer_mutation
    // entries): a KV cache, a counter. Such a program's executions differ by state.
    std::vector<std::string> mutated_buffers;

    // Index of the node producing `tensor`, or -1 (graph input, constant).
    int producerOf(const std::string& tensor) const;
    // All handles carried by any node, sorted and unique.
    std::vector<std::int64_t> allDebugHandles() const;
};

// A node's target as people say it: "…edge.ops.aten.convolution.default" →
// "convolution", "…quantized_decomposed.dequantize_per_channel.default" →
// "dequantize_per_channel"; an overload other than default is kept: "add.Tensor".
std::string shortTarget(std::string target);

// Parses the JSON text of one serialized ExportedProgram. Accepts both argument
// encodings (a single-key union object, and the 2024 form listing every member
// with nulls) and node tables without a `name` (2023 files: the first output's
// tensor name is the node name, as the deserializer of that time did).
Result<ExportGraph> parseExportGraph(const std::string& json, const std::string& file,
                                     const std::string& key);

} // namespace gapscope
