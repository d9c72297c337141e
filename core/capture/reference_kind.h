#pragma once

#include <string>

namespace gapscope {

struct AotCapture;

// What a capture's reference is, from the graph it was captured on
// (reference_graph) and its records: the answer to "why are all gaps zero?"
// (a quantised simulation tracks the device's int8 closely) and "why is every
// op red?" (a float model shows the whole quantisation error).
enum class ReferenceKind {
    FloatModel,      // the float model before quantisation (gapscope-capture float)
    QuantSimulation, // ExecuTorch's graph holding PT2E's quantize/dequantize: the quantised simulation
    ExportedGraph,   // ExecuTorch's graph of a float program: the Inspector's reference
    HostTwin,        // the same program run on this machine without delegates
    // The edge graph after QNN's passes (the QNN debugger's reference): QNN keeps
    // activation quantisation as node metadata, so the graph runs its activations
    // in float and dequantizes only its weights.
    QnnGraph,
    ModelRun, // a run of a module, graph unnamed
};
ReferenceKind referenceKind(const AotCapture& capture);
// The ETRecord graph whose debug handles key the capture's records: its
// reference_graph, or for a float reference keyed like another capture
// ("float_exported_program (handles by node provenance from G)") that capture's
// graph G. Empty when unnamed.
std::string keyingGraph(const AotCapture& capture);
// "float model", "quantised simulation (PT2E)", ...
std::string referenceKindLabel(ReferenceKind kind);
// One sentence: what the gaps against this reference mean.
std::string referenceKindMeaning(ReferenceKind kind);

} // namespace gapscope
