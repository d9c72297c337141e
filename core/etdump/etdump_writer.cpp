#include "core/etdump/etdump_writer.h"

#include "etdump_generated.h"

#include <cstring>

namespace gapscope {

namespace fb = gapscope::etdump_fb;

namespace {

using Builder = flatbuffers::FlatBufferBuilder;

flatbuffers::Offset<flatbuffers::String> optString(Builder& b, const std::optional<std::string>& s) {
    return s ? b.CreateString(*s) : flatbuffers::Offset<flatbuffers::String>();
}

flatbuffers::Offset<fb::Tensor> writeTensor(Builder& b, const Tensor& t) {
    auto sizes = b.CreateVector(t.sizes);
    auto strides = b.CreateVector(t.strides);
    return fb::CreateTensor(b, t.scalar_type, sizes, strides, t.offset);
}

flatbuffers::Offset<fb::Value> writeValue(Builder& b, const Value& v) {
    flatbuffers::Offset<fb::Tensor> tensor;
    flatbuffers::Offset<fb::TensorList> list;
    flatbuffers::Offset<fb::Int> intValue;
    flatbuffers::Offset<fb::Float> floatValue;
    flatbuffers::Offset<fb::Double> doubleValue;
    flatbuffers::Offset<fb::Bool> boolValue;
    flatbuffers::Offset<fb::Bool> output;
    if (v.known) {
        switch (v.type()) {
        case ValueType::Int: intValue = fb::CreateInt(b, v.int_val); break;
        case ValueType::Bool: boolValue = fb::CreateBool(b, v.bool_val); break;
        case ValueType::Float: floatValue = fb::CreateFloat(b, v.float_val); break;
        case ValueType::Double: doubleValue = fb::CreateDouble(b, v.double_val); break;
        case ValueType::Tensor:
            if (!v.tensors.empty())
                tensor = writeTensor(b, v.tensors.front());
            break;
        case ValueType::TensorList: {
            std::vector<flatbuffers::Offset<fb::Tensor>> items;
            for (const auto& t : v.tensors)
                items.push_back(writeTensor(b, t));
            list = fb::CreateTensorList(b, b.CreateVector(items));
            break;
        }
        default: break;
        }
    }
    if (v.has_output_marker)
        output = fb::CreateBool(b, v.output);
    return fb::CreateValue(b, v.val, tensor, list, intValue, floatValue, doubleValue, boolValue, output);
}

flatbuffers::Offset<fb::Event> writeEvent(Builder& b, const Event& e) {
    if (const auto* p = std::get_if<ProfileEvent>(&e)) {
        flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> metadata;
        if (p->delegate_debug_metadata)
            metadata = b.CreateVector(*p->delegate_debug_metadata);
        auto pe = fb::CreateProfileEvent(b, optString(b, p->name), p->chain_index, p->instruction_id,
                                         p->delegate_debug_id_int, optString(b, p->delegate_debug_id_str),
                                         metadata, p->start_time, p->end_time);
        return fb::CreateEvent(b, pe);
    }
    if (const auto* a = std::get_if<AllocationEvent>(&e))
        return fb::CreateEvent(b, 0, fb::CreateAllocationEvent(b, a->allocator_id, a->allocation_size));
    if (const auto* d = std::get_if<DebugEvent>(&e)) {
        flatbuffers::Offset<fb::Value> entry;
        if (d->debug_entry)
            entry = writeValue(b, *d->debug_entry);
        auto de = fb::CreateDebugEvent(b, d->chain_index, d->instruction_id, entry, d->delegate_debug_id_int,
                                       optString(b, d->delegate_debug_id_str), optString(b, d->name));
        return fb::CreateEvent(b, 0, 0, de);
    }
    return fb::CreateEvent(b);
}

} // namespace

std::vector<std::uint8_t> writeEtdump(const EtDump& dump, bool sizePrefixed) {
    Builder b(1024);
    std::vector<flatbuffers::Offset<fb::RunData>> runs;
    for (const auto& run : dump.runs) {
        std::vector<flatbuffers::Offset<fb::Allocator>> allocators;
        for (const auto& name : run.allocators)
            allocators.push_back(fb::CreateAllocator(b, b.CreateString(name)));
        std::vector<flatbuffers::Offset<fb::Event>> events;
        for (const auto& e : run.events)
            events.push_back(writeEvent(b, e));
        runs.push_back(fb::CreateRunData(b, optString(b, run.name), run.bundled_input_index,
                                         b.CreateVector(allocators), b.CreateVector(events)));
    }
    auto root = fb::CreateETDump(b, dump.version, b.CreateVector(runs));
    if (sizePrefixed)
        fb::FinishSizePrefixedETDumpBuffer(b, root);
    else
        fb::FinishETDumpBuffer(b, root);
    return std::vector<std::uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

DebugBufferBuilder::DebugBufferBuilder(std::size_t alignment, std::size_t baseMisalignment)
    : m_alignment(alignment == 0 ? 1 : alignment),
      m_base(baseMisalignment % (alignment == 0 ? 1 : alignment)) {}

std::int64_t DebugBufferBuilder::append(const void* data, std::size_t size) {
    if (size == 0)
        return -1;
    // Align the absolute address (base + offset), as BufferDataSink does.
    const std::size_t absolute = m_base + m_bytes.size();
    const std::size_t padded = (absolute + m_alignment - 1) / m_alignment * m_alignment;
    const std::size_t offset = padded - m_base;
    m_bytes.resize(offset + size, 0);
    std::memcpy(m_bytes.data() + offset, data, size);
    return static_cast<std::int64_t>(offset);
}

} // namespace gapscope
