#pragma once

#include "core/backends/arm_debug_map.h"
#include "core/capture/safetensors_file.h"
#include "core/common/mapped_file.h"
#include "core/common/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One non-constant op of a TOSA graph and its output as the TOSA reference
// model computed it (docs/formats/tosa-run.md).
struct TosaRunOp {
    std::size_t index = 0; // among the block's operators, constants included
    std::string op;        // "CONV2D", "RESCALE", …
    std::string output;    // its output tensor's TOSA name
    std::string dtype;     // TOSA's type of it: "FP32", "INT8", "INT32", …
    std::vector<std::int64_t> shape;
    std::vector<std::string> inputs;
    // A TRANSPOSE's permutation (output axis i is input axis perms[i]); empty
    // for every other op. arm_layout reads each tensor's layout from it.
    std::vector<std::int64_t> perms;
    SafetensorsTensor tensor; // where its values are in the file
};

// A node of the lowered program: "aten_sort_default", "…edge.ops.aten.sort.default".
struct TosaNodeRef {
    std::string node, target;
};

// One side of a delegate call in the lowered program: the program's dtype of
// the tensor there ("int8", as torch names it; empty when the writer could not
// tell) and the nodes making it (an input: none when it is the program's own
// input) or reading it (an output).
struct TosaCallSide {
    std::string dtype;
    std::vector<TosaNodeRef> nodes;
    bool program_output = false; // an output the program returns
};

// One delegate call's run in a tosa_run.safetensors file: every op's tensor of
// one run of one TOSA graph, written by gapscope_capture.tosa_run from the
// reference model's outputs (a file holds one per delegate call, in call order).
struct TosaRun {
    SafetensorsFile file;
    std::string backend;                // the delegate's backend id: TOSABackend, EthosUBackend
    std::string tosa_name, tosa_sha256; // the graph as lowered
    std::map<std::string, std::string> producer;
    std::vector<std::string> graph_inputs, graph_outputs;
    std::vector<std::string> graph_input_types; // the graph's declared type of each input ("INT8")
    // ... and of each output: an output may be a constant of the graph (a
    // folded `full`), which no op computes; its tensor is in the file.
    std::vector<std::string> graph_output_types;
    std::map<std::string, SafetensorsTensor> inputs; // what the graph was run with, by input name
    // The call in the lowered program: its node, and each input's and output's
    // side there, in the graph's order (arm_partitions).
    std::string call_node;
    std::vector<TosaCallSide> call_inputs, call_outputs;
    std::vector<TosaRunOp> ops; // in graph order
    // The Arm backend's debug entry of each op, in the ops' order (the entries
    // it puts in the ops' locations with DebugMode.TOSA).
    ArmDebugMap debug;

    const TosaRunOp* find(const std::string& output) const;
};

// A tosa_run.safetensors file: the runs of a program's Arm delegate calls, in
// call order, and the ops the program left on the CPU between them.
struct TosaProgramRun {
    std::vector<TosaRun> delegates;
    std::vector<TosaNodeRef> cpu_ops; // in graph order
};

// The safetensors dtype TOSA's type is stored as ("INT8" → "I8"), or nothing
// for a type the format does not store.
std::optional<std::string> tosaSafetensorsDtype(const std::string& tosaType);

// TOSA's type as torch names it ("INT8" → "int8", "FP32" → "float32"); empty
// for one that has no torch dtype (arm_partitions then calls no disagreement).
std::string tosaTorchDtype(const std::string& tosaType);

// Reads a TOSA run file: the safetensors header, then the "gapscope.tosa_run"
// document in its metadata, one run per delegate call in call order. Every op
// must name a tensor of the file (under its delegate's prefix) whose dtype and
// shape are the op's, each output once, and carry one debug entry naming it;
// the graph's outputs must be ops' outputs and its inputs tensors of the file,
// each with its declared type and its side of the call. An error names the file, the field
// ("delegates[1].ops[3].dtype") and what is wrong.
Result<TosaProgramRun> readTosaRun(std::shared_ptr<const MappedFile> file);

constexpr const char* kTosaRunMetadataKey = "gapscope.tosa_run";
// The backends whose delegates a TOSA run stands for: ExecuTorch's Arm TOSA
// backend, and its Ethos-U backend, whose command stream Vela compiled from a
// TOSA graph (the run is of that graph).
constexpr const char* kArmTosaBackend = "TOSABackend";
constexpr const char* kArmEthosUBackend = "EthosUBackend";

} // namespace gapscope
