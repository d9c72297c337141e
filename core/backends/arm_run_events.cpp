#include "core/backends/arm_run_events.h"

#include "core/metrics/operand.h"

namespace gapscope {

EtDump armRunEtDump(const std::vector<std::pair<const TosaRun*, std::int32_t>>& calls) {
    EtDump dump;
    RunData data;
    for (const auto& [call, instruction] : calls) {
        const TosaRun& run = *call;
        dump.debug_buffer = run.file.mappedFile();
        dump.etdump_path = run.file.path();
        data.name = data.name ? *data.name + ", " + run.tosa_name : run.tosa_name;
        for (const auto& op : run.ops) {
            Tensor tensor;
            tensor.scalar_type = static_cast<std::int8_t>(op.tensor.scalar_type);
            tensor.sizes = op.shape;
            for (const std::uint64_t stride : rowMajorStrides(op.shape))
                tensor.strides.push_back(static_cast<std::int64_t>(stride));
            tensor.offset = static_cast<std::int64_t>(run.file.offsetInFile(op.tensor));
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
    }
    dump.runs.push_back(std::move(data));
    return dump;
}

} // namespace gapscope
