#include "core/backends/arm_partitions.h"

#include "core/etrecord/export_graph.h"

#include <map>

namespace gapscope {

namespace {

std::string nodesText(const std::vector<TosaNodeRef>& nodes) {
    std::string out;
    for (const auto& n : nodes)
        out += (out.empty() ? "" : ", ") + n.node + " (" + shortTarget(n.target) + ")";
    return out;
}

} // namespace

ArmPartitions armPartitions(const TosaProgramRun& program) {
    ArmPartitions out;
    out.delegates = program.delegates.size();
    for (const auto& op : program.cpu_ops)
        out.cpu_ops.push_back(shortTarget(op.target));
    for (std::size_t k = 0; k < program.delegates.size(); ++k) {
        const TosaRun& run = program.delegates[k];
        for (std::size_t i = 0; i < run.graph_inputs.size(); ++i) {
            const TosaCallSide& side = run.call_inputs[i];
            out.boundaries.push_back({k, true, i, run.graph_inputs[i],
                                      side.nodes.empty() ? "the program's input" : nodesText(side.nodes),
                                      side.dtype, tosaTorchDtype(run.graph_input_types[i])});
        }
        for (std::size_t i = 0; i < run.graph_outputs.size(); ++i) {
            const TosaCallSide& side = run.call_outputs[i];
            std::string to = nodesText(side.nodes);
            if (side.program_output)
                to += (to.empty() ? "" : ", ") + std::string("the program's output");
            out.boundaries.push_back({k, false, i, run.graph_outputs[i], to.empty() ? "nothing" : to,
                                      side.dtype, tosaTorchDtype(run.graph_output_types[i])});
        }
    }
    return out;
}

std::string armPartitionNote(const ArmPartitions& p, const std::string& backend) {
    std::map<std::string, std::size_t> counts;
    for (const auto& op : p.cpu_ops)
        ++counts[op];
    std::string cpu;
    for (const auto& [op, n] : counts)
        cpu += (cpu.empty() ? "" : ", ") + op + (n > 1 ? " ×" + std::to_string(n) : "");
    std::string text =
        std::to_string(p.delegates) + " " + backend + " delegate" + (p.delegates == 1 ? "" : "s") + "; " +
        std::to_string(p.cpu_ops.size()) + " op" + (p.cpu_ops.size() == 1 ? "" : "s") + " on the CPU" +
        (cpu.empty() ? "" : " (" + cpu + ")") + ". Partition boundaries (program dtype / TOSA graph dtype):";
    for (const auto& b : p.boundaries)
        text += "\n  delegate " + std::to_string(b.delegate) + (b.input ? " input " : " output ") +
                std::to_string(b.index) + (b.input ? " from " : " to ") + b.cpu_side + ": " +
                (b.program_dtype.empty() ? "?" : b.program_dtype) + " / " +
                (b.tosa_dtype.empty() ? "?" : b.tosa_dtype) + (b.disagrees() ? "  ← disagree" : "");
    return text;
}

std::vector<std::string> armBoundaryFindings(const ArmPartitions& p) {
    std::vector<std::string> out;
    for (const auto& b : p.boundaries)
        if (b.disagrees())
            out.push_back(
                "partition boundary: delegate " + std::to_string(b.delegate) +
                (b.input ? "'s input " : "'s output ") + std::to_string(b.index) + " (" + b.tosa_tensor +
                ", " + (b.input ? "from " : "to ") + b.cpu_side + ") is " + b.program_dtype +
                " in the program but " + b.tosa_dtype + " in the delegate's TOSA graph: " +
                (b.input ? "the CPU hands the NPU " + b.program_dtype + " where it reads " + b.tosa_dtype
                         : "the NPU hands the CPU " + b.tosa_dtype + " where it reads " + b.program_dtype) +
                ". On a device ExecuTorch's Ethos-U runtime refuses the call or reads the bytes as the other "
                "type; this run, in torch, converted the value, so no row shows it");
    return out;
}

} // namespace gapscope
