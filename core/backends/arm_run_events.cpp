#include "core/backends/arm_run_events.h"

namespace gapscope {

EtDump armRunEtDump(const TosaRun& run, std::int32_t instruction) {
    EtDump dump;
    dump.etdump_path = run.mapped ? run.mapped->path() : std::string();
    dump.debug_buffer = run.mapped;
    RunData data;
    data.name = run.tosa_name;
    // A safetensors tensor's offsets count from its data section, after the
    // 8-byte header length and the header.
    const std::uint64_t dataStart = 8 + run.file.headerSize();
    for (const auto& op : run.ops) {
        Tensor tensor;
        tensor.scalar_type = static_cast<std::int8_t>(op.tensor.scalar_type);
        tensor.sizes = op.shape;
        tensor.strides.assign(op.shape.size(), 1);
        for (std::size_t d = op.shape.size(); d-- > 1;)
            tensor.strides[d - 1] = tensor.strides[d] * op.shape[d];
        tensor.offset = static_cast<std::int64_t>(dataStart + op.tensor.begin);
        tensor.numel = op.tensor.numel;
        tensor.nbytes = op.tensor.end - op.tensor.begin;
        tensor.data = *tensor.nbytes == 0 ? TensorData::Empty : TensorData::Present;
        Value value;
        value.val = static_cast<std::int8_t>(ValueType::Tensor);
        value.tensors.push_back(std::move(tensor));
        DebugEvent event;
        event.instruction_id = instruction;
        event.delegate_debug_id_str = op.output;
        event.name = op.output;
        event.debug_entry = std::move(value);
        data.events.emplace_back(std::move(event));
    }
    dump.runs.push_back(std::move(data));
    return dump;
}

} // namespace gapscope
