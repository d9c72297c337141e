#pragma once

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

// A tosa_run.safetensors file: every op's tensor of one run of one TOSA graph,
// written by gapscope_capture.tosa_run from the reference model's outputs.
struct TosaRun {
    SafetensorsFile file;
    std::string tosa_name, tosa_sha256;             // the graph as lowered
    std::string debug_json_name, debug_json_sha256; // the Arm backend's debug.json for it, when named
    // Where that debug.json lies from the run's folder ("tosa/debug.json"), as
    // written; empty when the document does not say (the name, beside the run).
    std::string debug_json_path;
    std::map<std::string, std::string> producer;
    std::vector<std::string> graph_inputs, graph_outputs;
    std::map<std::string, SafetensorsTensor> inputs; // what the graph was run with, by input name
    std::vector<TosaRunOp> ops;                      // in graph order

    const TosaRunOp* find(const std::string& output) const;
};

// The safetensors dtype TOSA's type is stored as ("INT8" → "I8"), or nothing
// for a type the format does not store.
std::optional<std::string> tosaSafetensorsDtype(const std::string& tosaType);

// Reads a TOSA run: the safetensors header, then the "gapscope.tosa_run"
// document in its metadata. Every op must name a tensor of the file whose
// dtype and shape are the op's, each output once; the graph's outputs must be
// ops' outputs and its inputs tensors of the file. An error names the file,
// the field ("ops[3].dtype") and what is wrong.
Result<TosaRun> readTosaRun(std::shared_ptr<const MappedFile> file);

constexpr const char* kTosaRunMetadataKey = "gapscope.tosa_run";

} // namespace gapscope
