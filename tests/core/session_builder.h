#pragma once

#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_writer.h"
#include "core/compare/comparison.h"
#include "core/etdump/etdump_model.h"
#include "core/etdump/etdump_writer.h"
#include "core/etrecord/etrecord_model.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope::test {

// Builds small, hand-made sessions for alignment tests: runtime events in the
// order ExecuTorch's runtime logs them (written to real ETDump bytes and read
// back), an ETRecord model with maps and an Edge graph, and an AOT capture
// written to a real safetensors file.
class SessionBuilder {
public:
    // Runtime side.
    Value tensor(std::vector<float> values, std::vector<std::int64_t> shape);
    Value tensorList(std::vector<Value> tensors);
    void debug(std::int32_t instruction, Value v, std::int32_t delegateInt = -1,
               std::optional<std::string> delegateStr = std::nullopt);
    void profile(std::int32_t instruction, const std::string& name, std::int32_t delegateInt = -1,
                 std::optional<std::string> delegateStr = std::nullopt);
    // A KernelCall: its outputs, native_call_<op>, OPERATOR_CALL.
    void kernel(std::int32_t instruction, const std::string& op, std::vector<Value> outputs);
    // A DelegateCall: every argument (inputs then outputs), then DELEGATE_CALL.
    void delegateCall(std::int32_t instruction, std::vector<Value> arguments);

    // ETRecord side.
    MethodMaps maps;
    void node(const std::string& name, std::vector<std::int64_t> handles,
              std::vector<std::string> inputs = {}, std::vector<std::string> outputs = {});

    // Reference side: one record per key.
    void record(std::vector<std::int64_t> handles, std::vector<std::string> ops,
                std::vector<std::pair<std::vector<float>, std::vector<std::int64_t>>> outputs,
                bool sequence = false);
    // A record without a value (one null output) and the reason why, as
    // capture_float_reference writes one whose float counterpart is unknown.
    void referenceGraph(std::string graph);
    void recordWithoutValue(std::vector<std::int64_t> handles, std::vector<std::string> ops,
                            std::string reason);

    // Finishing: `truncateBufferTo` cuts the debug buffer to model missing data.
    EtDump dump(std::optional<std::size_t> truncateBufferTo = std::nullopt);
    EtRecord etrecord() const;
    AotCapture capture();
    // Builds all three and compares them; the builder keeps what the comparison
    // points into. Without an ETRecord only __debugID_ names resolve.
    const Comparison& compare(std::optional<std::size_t> truncateBufferTo = std::nullopt,
                              bool withEtRecord = true);
    // The same inputs, only planned (a staged load's first step).
    PlannedComparison plan(std::optional<std::size_t> truncateBufferTo = std::nullopt);
    const EtDump& builtDump() const { return *m_builtDump; }
    const AotCapture& builtCapture() const { return *m_builtCapture; }
    const EtRecord& builtRecord() const { return *m_builtRecord; }
    // The bytes of the files dump() and capture() wrote, for loading them as a session.
    const std::vector<std::uint8_t>& dumpBytes() const { return m_dumpBytes; }
    const std::vector<std::uint8_t>& debugBufferBytes() const { return m_buffer.bytes(); }
    const std::vector<std::uint8_t>& captureBytes() const { return m_captureBytes; }

private:
    DebugBufferBuilder m_buffer;
    RunData m_run;
    ExportGraph m_graph;
    AotCapture m_capture;
    SafetensorsWriter m_tensors;
    std::vector<std::uint8_t> m_captureBytes;
    std::vector<std::uint8_t> m_dumpBytes;
    std::optional<EtDump> m_builtDump;
    std::optional<EtRecord> m_builtRecord;
    std::optional<AotCapture> m_builtCapture;
    std::optional<Comparison> m_comparison;
    void build(std::optional<std::size_t> truncateBufferTo, bool withEtRecord);
};

// One linear of 24 values, compared: its runtime value `runtime`-shaped against a
// `reference`-shaped record, element 5 off by 0.25.
std::unique_ptr<SessionBuilder> linearWithOneElementOff(std::vector<std::int64_t> runtime,
                                                        std::vector<std::int64_t> reference);

} // namespace gapscope::test
