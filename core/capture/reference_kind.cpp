#include "core/capture/reference_kind.h"

#include "core/capture/aot_capture.h"

namespace gapscope {

ReferenceKind referenceKind(const AotCapture& capture) {
    const std::string g = capture.reference_graph.value_or("");
    if (g.rfind("float_exported_program", 0) == 0)
        return ReferenceKind::FloatModel;
    if (g == "host_twin_runtime")
        return ReferenceKind::HostTwin;
    if (g.empty())
        return ReferenceKind::ModelRun;
    // Issue 56: labelled a quantised simulation for its weights' dequantize
    // ops, "often near 0", while every 8-bit row of it reads 36-40 dB.
    if (g.rfind("edge_after_transform", 0) == 0)
        return ReferenceKind::QnnGraph;
    // The ETRecord's graphs: quantised when PT2E left its quantize/dequantize ops in them.
    for (const auto& record : capture.records)
        for (const auto& op : record.ops)
            if (op.find("quantize_per_") != std::string::npos)
                return ReferenceKind::QuantSimulation;
    return ReferenceKind::ExportedGraph;
}

std::string keyingGraph(const AotCapture& capture) {
    const std::string g = capture.reference_graph.value_or("");
    if (g.rfind("float_exported_program", 0) != 0)
        return g;
    // float_reference.py writes "... (handles by node <provenance|name> from <graph>)".
    const std::string from = " from ";
    const auto at = g.rfind(from);
    if (at == std::string::npos || g.back() != ')')
        return {};
    const std::string inner = g.substr(at + from.size(), g.size() - 1 - at - from.size());
    return inner == "an in-memory program" ? std::string{} : inner;
}

std::string referenceKindLabel(ReferenceKind kind) {
    switch (kind) {
    case ReferenceKind::FloatModel: return "float model";
    case ReferenceKind::QuantSimulation: return "quantised simulation (PT2E)";
    case ReferenceKind::ExportedGraph: return "exported graph";
    case ReferenceKind::HostTwin: return "host twin (no delegates)";
    case ReferenceKind::QnnGraph: return "QNN's lowered graph, activations in float";
    case ReferenceKind::ModelRun: return "model run";
    }
    return "model run";
}

std::string referenceKindMeaning(ReferenceKind kind) {
    switch (kind) {
    case ReferenceKind::FloatModel:
        return "the float model before quantisation: the gaps are the whole error of quantising and lowering";
    case ReferenceKind::QuantSimulation:
        return "ExecuTorch's quantised graph run in float (PT2E's simulation, the Inspector's reference): "
               "the gaps "
               "are where the device departs from the simulation, not the quantisation error, and are often "
               "near 0";
    case ReferenceKind::ExportedGraph:
        return "ExecuTorch's exported graph (the Inspector's reference): the gaps are the backend's own "
               "error";
    case ReferenceKind::HostTwin:
        return "the same program run on this machine without delegates: the gaps are each delegate kernel's "
               "error";
    case ReferenceKind::QnnGraph:
        return "the edge graph after QNN's passes, as Qualcomm's QNN debugger compares: weights quantised, "
               "activations in float (QNN keeps their quantisation as metadata), so the gaps hold the "
               "activations' quantisation and the kernels' error (about 35-45 dB at 8 bits, 50-60 at 16 on "
               "the e2e attention block), "
               "not near 0";
    case ReferenceKind::ModelRun: return "a run of the model captured by gapscope-capture";
    }
    return {};
}

} // namespace gapscope
