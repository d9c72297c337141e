#include "core/report/etdump_json.h"

#include "core/etdump/scalar_type.h"
#include "core/etdump/tensor_stats.h"

#include <cmath>

namespace gapscope {

using json = nlohmann::ordered_json;

namespace {

json optString(const std::optional<std::string>& s) {
    return s ? json(*s) : json(nullptr);
}

json tensorJson(const EtDump& dump, const Tensor& t) {
    json j;
    j["type"] = "tensor";
    j["dtype"] = scalarTypeName(t.scalar_type);
    j["sizes"] = t.sizes;
    j["strides"] = t.strides;
    j["offset"] = t.offset;
    j["nbytes"] = t.nbytes ? json(*t.nbytes) : json(nullptr);
    j["data"] = tensorDataName(t.data);
    if (!t.problem.empty())
        j["problem"] = t.problem;
    if (t.data == TensorData::Present && t.numel) {
        const auto s =
            computeTensorStats(static_cast<ScalarType>(t.scalar_type), dump.tensorBytes(t), *t.numel);
        j["stats"] = {{"sum", jsonNumber(s.sum)},
                      {"min", s.min ? jsonNumber(*s.min) : json(nullptr)},
                      {"max", s.max ? jsonNumber(*s.max) : json(nullptr)},
                      {"mean", jsonNumber(s.mean)},
                      {"nan", s.nan},
                      {"inf", s.inf}};
    }
    return j;
}

json valueJson(const EtDump& dump, const Value& v) {
    json j;
    if (v.val < 0 || v.val > static_cast<std::int8_t>(ValueType::String)) {
        j["type"] = "unknown";
        j["val"] = v.val;
        j["output"] = v.output;
        return j;
    }
    j["type"] = valueTypeName(v.type());
    switch (v.type()) {
    case ValueType::Tensor:
        j = v.tensors.empty() ? json{{"type", "tensor"}} : tensorJson(dump, v.tensors.front());
        break;
    case ValueType::TensorList: {
        json list = json::array();
        for (const auto& t : v.tensors)
            list.push_back(tensorJson(dump, t));
        j["tensors"] = std::move(list);
        break;
    }
    case ValueType::Int: j["value"] = v.known ? json(v.int_val) : json(nullptr); break;
    case ValueType::Bool: j["value"] = v.known ? json(v.bool_val) : json(nullptr); break;
    case ValueType::Float:
        j["value"] = v.known ? jsonNumber(static_cast<double>(v.float_val)) : json(nullptr);
        break;
    case ValueType::Double: j["value"] = v.known ? jsonNumber(v.double_val) : json(nullptr); break;
    case ValueType::String:
    case ValueType::Null: j["value"] = nullptr; break;
    }
    if (!v.known)
        j["problem"] = "payload table missing";
    j["output"] = v.output;
    return j;
}

json eventJson(const EtDump& dump, const RunData& run, const Event& e) {
    json j;
    if (const auto* p = std::get_if<ProfileEvent>(&e)) {
        j["kind"] = "profile";
        j["name"] = optString(p->name);
        j["chain_index"] = p->chain_index;
        j["instruction_id"] = p->instruction_id;
        j["delegate_debug_id_int"] = p->delegate_debug_id_int;
        j["delegate_debug_id_str"] = optString(p->delegate_debug_id_str);
        j["delegate_debug_metadata"] =
            p->delegate_debug_metadata ? json(*p->delegate_debug_metadata) : json(nullptr);
        j["start_time"] = p->start_time;
        j["end_time"] = p->end_time;
    } else if (const auto* d = std::get_if<DebugEvent>(&e)) {
        j["kind"] = "debug";
        j["chain_index"] = d->chain_index;
        j["instruction_id"] = d->instruction_id;
        j["delegate_debug_id_int"] = d->delegate_debug_id_int;
        j["delegate_debug_id_str"] = optString(d->delegate_debug_id_str);
        j["name"] = optString(d->name);
        j["value"] = d->debug_entry ? valueJson(dump, *d->debug_entry) : json(nullptr);
    } else if (const auto* a = std::get_if<AllocationEvent>(&e)) {
        j["kind"] = "allocation";
        j["allocator_id"] = a->allocator_id;
        j["allocation_size"] = a->allocation_size;
        const bool inRange =
            a->allocator_id >= 1 && static_cast<std::size_t>(a->allocator_id) <= run.allocators.size();
        j["allocator"] =
            inRange ? json(run.allocators[static_cast<std::size_t>(a->allocator_id - 1)]) : json(nullptr);
    } else {
        j["kind"] = "empty";
    }
    return j;
}

json locationJson(const Location& l) {
    json j;
    j["file"] = l.file;
    j["run"] = l.run >= 0 ? json(l.run) : json(nullptr);
    j["event"] = l.event >= 0 ? json(l.event) : json(nullptr);
    j["field"] = l.field.empty() ? json(nullptr) : json(l.field);
    j["byte_offset"] = l.byteOffset >= 0 ? json(l.byteOffset) : json(nullptr);
    return j;
}

} // namespace

json jsonNumber(double x) {
    if (std::isnan(x))
        return "NaN";
    if (std::isinf(x))
        return x > 0 ? "Infinity" : "-Infinity";
    return x;
}

json etdumpToJson(const EtDump& dump) {
    json doc;
    doc["file"] = dump.etdump_path;
    doc["debug_buffer"] = dump.debug_buffer ? json(dump.debug_buffer->path()) : json(nullptr);
    doc["size_prefixed"] = dump.size_prefixed;
    doc["version"] = dump.version;
    json runs = json::array();
    for (const auto& run : dump.runs) {
        json r;
        r["name"] = optString(run.name);
        r["bundled_input_index"] = run.bundled_input_index;
        r["allocators"] = run.allocators;
        json events = json::array();
        for (const auto& e : run.events)
            events.push_back(eventJson(dump, run, e));
        r["events"] = std::move(events);
        runs.push_back(std::move(r));
    }
    doc["runs"] = std::move(runs);
    json warnings = json::array();
    for (const auto& w : dump.warnings)
        warnings.push_back(
            {{"code", warningCodeName(w.code)}, {"message", w.message}, {"where", locationJson(w.where)}});
    doc["warnings"] = std::move(warnings);
    return doc;
}

} // namespace gapscope
