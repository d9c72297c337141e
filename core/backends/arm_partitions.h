#pragma once

#include "core/backends/tosa_run.h"

#include <string>
#include <vector>

namespace gapscope {

// Where an Arm program's delegates meet the ops left on the CPU (issue 61,
// docs/arm.md §7). An Ethos-U program is partitioned by EthosUPartitioner:
// what the NPU cannot run stays outside its delegates and runs in ExecuTorch's
// CPU kernels (Vela itself never falls back for TOSA input), so each tensor a
// delegate takes or gives is a partition boundary. Its dtype is said twice:
// by the lowered program (what the CPU side makes or reads, as the TOSA run's
// writer read it from the program's graph) and by the delegate's TOSA graph
// (what the NPU reads or writes: its declared input and output types).
struct ArmBoundary {
    std::size_t delegate = 0; // the k-th delegate call
    bool input = true;        // into the delegate, or out of it
    std::size_t index = 0;    // among the delegate's inputs or outputs
    std::string tosa_tensor;  // the TOSA graph's name for it
    std::string
        cpu_side; // the CPU ops making (input) or reading (output) it, or "the program's input/output"
    std::string program_dtype, tosa_dtype; // "int8", "float32"; empty when unknown
    bool disagrees() const {
        return !program_dtype.empty() && !tosa_dtype.empty() && program_dtype != tosa_dtype;
    }
};

struct ArmPartitions {
    std::size_t delegates = 0;
    std::vector<std::string>
        cpu_ops; // the lowered graph's ops outside every delegate, short targets, in order
    std::vector<ArmBoundary> boundaries;
};

ArmPartitions armPartitions(const TosaProgramRun& program);

// The partitions in a few lines for the comparison's notes; one warning per
// boundary whose dtypes disagree. On a device such a boundary fails the call
// (ExecuTorch's Ethos-U runtime checks each tensor against Vela's descriptor)
// or its bytes are read as the other type; the run here, in torch, converts
// the value at the call, so no row's numbers show it.
std::string armPartitionNote(const ArmPartitions& p, const std::string& backend);
std::vector<std::string> armBoundaryFindings(const ArmPartitions& p);

} // namespace gapscope
