#include "session_builder.h"

#include "core/etdump/etdump_reader.h"

#include <catch2/catch.hpp>
#include <cstring>

namespace gapscope::test {

Value SessionBuilder::tensor(std::vector<float> values, std::vector<std::int64_t> shape) {
    Tensor t;
    t.scalar_type = static_cast<std::int8_t>(ScalarType::Float);
    t.sizes = shape;
    t.strides.assign(shape.size(), 1);
    t.offset = m_buffer.append(values.data(), values.size() * sizeof(float));
    Value v;
    v.val = static_cast<std::int8_t>(ValueType::Tensor);
    v.tensors.push_back(t);
    return v;
}

Value SessionBuilder::tensorList(std::vector<Value> tensors) {
    Value v;
    v.val = static_cast<std::int8_t>(ValueType::TensorList);
    for (auto& t : tensors)
        v.tensors.push_back(t.tensors.front());
    return v;
}

void SessionBuilder::debug(std::int32_t instruction, Value v, std::int32_t delegateInt,
                           std::optional<std::string> delegateStr) {
    DebugEvent d;
    d.instruction_id = instruction;
    d.delegate_debug_id_int = delegateInt;
    d.delegate_debug_id_str = std::move(delegateStr);
    d.debug_entry = std::move(v);
    m_run.events.push_back(d);
}

void SessionBuilder::profile(std::int32_t instruction, const std::string& name, std::int32_t delegateInt,
                             std::optional<std::string> delegateStr) {
    ProfileEvent p;
    p.instruction_id = instruction;
    if (delegateInt == -1 && !delegateStr)
        p.name = name;
    p.delegate_debug_id_int = delegateInt;
    p.delegate_debug_id_str = std::move(delegateStr);
    m_run.events.push_back(p);
}

void SessionBuilder::kernel(std::int32_t instruction, const std::string& op, std::vector<Value> outputs) {
    for (auto& o : outputs)
        debug(instruction, std::move(o));
    profile(instruction, "native_call_" + op);
    profile(instruction, "OPERATOR_CALL");
}

void SessionBuilder::delegateCall(std::int32_t instruction, std::vector<Value> arguments) {
    for (auto& a : arguments)
        debug(instruction, std::move(a));
    profile(instruction, "DELEGATE_CALL");
}

void SessionBuilder::node(const std::string& name, std::vector<std::int64_t> handles,
                          std::vector<std::string> inputs, std::vector<std::string> outputs) {
    GraphNode n;
    n.name = name;
    n.target = "executorch.exir.dialects.edge.ops.aten." + name + ".default";
    n.debug_handles = std::move(handles);
    n.input_tensors = std::move(inputs);
    n.output_tensors = outputs.empty() ? std::vector<std::string>{name} : std::move(outputs);
    m_graph.nodes.push_back(n);
}

void SessionBuilder::record(std::vector<std::int64_t> handles, std::vector<std::string> ops,
                            std::vector<std::pair<std::vector<float>, std::vector<std::int64_t>>> outputs,
                            bool sequence) {
    CaptureRecord r;
    r.debug_handle = std::move(handles);
    r.ops = std::move(ops);
    r.sequence = sequence;
    for (auto& [values, shape] : outputs) {
        const std::string name =
            "records/" + std::to_string(m_capture.records.size()) + "/" + std::to_string(r.outputs.size());
        std::vector<std::uint8_t> bytes(values.size() * sizeof(float));
        std::memcpy(bytes.data(), values.data(), bytes.size());
        REQUIRE_FALSE(m_tensors.add(name, ScalarType::Float, shape, bytes));
        CaptureValue v;
        v.kind = CaptureValue::Kind::Tensor;
        v.tensor = name;
        r.outputs.push_back(v);
    }
    m_capture.records.push_back(r);
}

void SessionBuilder::referenceGraph(std::string graph) {
    m_capture.reference_graph = std::move(graph);
}

void SessionBuilder::recordWithoutValue(std::vector<std::int64_t> handles, std::vector<std::string> ops,
                                        std::string reason) {
    CaptureRecord r;
    r.debug_handle = std::move(handles);
    r.ops = std::move(ops);
    r.outputs.emplace_back(); // null
    r.invalid_reason = std::move(reason);
    m_capture.records.push_back(r);
}

EtDump SessionBuilder::dump(std::optional<std::size_t> truncateBufferTo) {
    EtDump d;
    m_run.name = "Execute";
    d.runs.push_back(m_run);
    m_dumpBytes = writeEtdump(d);
    auto buffer = m_buffer.bytes();
    if (truncateBufferTo)
        buffer.resize(*truncateBufferTo);
    EtdumpReadOptions options;
    options.name = "built.etdp";
    options.debug_buffer = MappedFile::fromBytes("built.debug.bin", buffer.data(), buffer.size());
    auto r = parseEtdump({m_dumpBytes.data(), m_dumpBytes.size()}, options);
    REQUIRE(r);
    return std::move(r).value();
}

EtRecord SessionBuilder::etrecord() const {
    EtRecord r;
    r.path = "built.etrecord";
    r.methods["forward"] = maps;
    ExportGraph g = m_graph;
    g.key = "edge_dialect_exported_program/forward";
    r.edge_programs["forward"] = g;
    return r;
}

AotCapture SessionBuilder::capture() {
    m_tensors.setMetadata(AotCapture::kMetadataKey, aotCaptureDocument(m_capture));
    m_captureBytes = m_tensors.serialize();
    auto r = readAotCapture(
        MappedFile::fromBytes("built.gscap.safetensors", m_captureBytes.data(), m_captureBytes.size()));
    if (!r)
        FAIL(r.error().describe());
    return std::move(r).value();
}

void SessionBuilder::build(std::optional<std::size_t> truncateBufferTo, bool withEtRecord) {
    m_builtDump = dump(truncateBufferTo);
    if (withEtRecord)
        m_builtRecord = etrecord();
    m_builtCapture = capture();
}

PlannedComparison SessionBuilder::plan(std::optional<std::size_t> truncateBufferTo) {
    build(truncateBufferTo, true);
    auto c = planComparison(*m_builtDump, &*m_builtRecord, *m_builtCapture);
    if (!c)
        FAIL(c.error().describe());
    return std::move(c).value();
}

const Comparison& SessionBuilder::compare(std::optional<std::size_t> truncateBufferTo, bool withEtRecord) {
    build(truncateBufferTo, withEtRecord);
    auto c = compareSession(*m_builtDump, withEtRecord ? &*m_builtRecord : nullptr, *m_builtCapture);
    if (!c)
        FAIL(c.error().describe());
    m_comparison = std::move(c).value();
    return *m_comparison;
}

std::unique_ptr<SessionBuilder> linearWithOneElementOff(std::vector<std::int64_t> runtime,
                                                        std::vector<std::int64_t> reference) {
    auto b = std::make_unique<SessionBuilder>();
    b->maps.debug_handle_map[0] = {{1}, false};
    b->node("linear", {1});
    std::vector<float> values(24);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<float>(i) * 0.5f - 3.0f;
    std::vector<float> drifted = values;
    drifted[5] += 0.25f;
    b->kernel(0, "linear.out", {b->tensor(drifted, runtime)});
    b->record({1}, {"linear"}, {{values, reference}});
    b->compare();
    return b;
}

} // namespace gapscope::test
