#include "core/capture/aot_capture.h"

#include "core/capture/capture_document_reader.h"
#include "core/capture/capture_tensor_names.h"
#include "core/capture/safetensors_writer.h"
#include "core/common/side_task.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace gapscope {

using json = nlohmann::ordered_json;

const SafetensorsTensor* AotCapture::tensor(const CaptureValue& v) const {
    if (v.kind != CaptureValue::Kind::Tensor || !file)
        return nullptr;
    return v.resolved ? v.resolved : file->find(v.tensor);
}

std::vector<const std::vector<std::int64_t>*> AotCapture::debugHandles() const {
    std::vector<const std::vector<std::int64_t>*> out;
    out.reserve(records.size());
    for (const auto& r : records)
        out.push_back(&r.debug_handle);
    return out;
}

namespace {

json valueJson(const CaptureValue& v) {
    switch (v.kind) {
    case CaptureValue::Kind::Tensor: return {{"kind", "tensor"}, {"name", v.tensor}};
    case CaptureValue::Kind::Int: return {{"kind", "int"}, {"value", v.int_value}};
    case CaptureValue::Kind::Float: {
        json value = v.float_value;
        if (std::isnan(v.float_value))
            value = "NaN";
        else if (std::isinf(v.float_value))
            value = v.float_value > 0 ? "Infinity" : "-Infinity";
        return {{"kind", "float"}, {"value", value}};
    }
    case CaptureValue::Kind::Bool: return {{"kind", "bool"}, {"value", v.bool_value}};
    case CaptureValue::Kind::Null: return {{"kind", "null"}};
    case CaptureValue::Kind::List: {
        json items = json::array();
        for (const auto& i : v.items)
            items.push_back(valueJson(i));
        return {{"kind", "list"}, {"items", items}};
    }
    }
    return {{"kind", "null"}};
}

json valuesJson(const std::vector<CaptureValue>& values) {
    json out = json::array();
    for (const auto& v : values)
        out.push_back(valueJson(v));
    return out;
}

json quantJson(const QuantParams& q) {
    json j;
    j["scheme"] = q.per_channel ? "per_channel" : "per_tensor";
    if (q.per_channel) {
        j["scale"] = q.scale;
        j["zero_point"] = q.zero_point;
        j["axis"] = q.axis.value_or(0);
    } else {
        j["scale"] = q.scale.at(0);
        j["zero_point"] = q.zero_point.at(0);
    }
    j["dtype"] = q.dtype;
    j["qmin"] = q.qmin;
    j["qmax"] = q.qmax;
    return j;
}

} // namespace

Result<AotCapture> readAotCapture(std::shared_ptr<const MappedFile> mapped) {
    const std::string path = mapped->path();
    // The document is read on another core while the header's tensor entries,
    // which follow __metadata__ in every writer's file, are read here: the two
    // were a third of opening a 50,000-op session, one after the other. The
    // task takes the document out of the metadata, with the room for simdjson's
    // padding the header's reader leaves after it (a copy of 8 MB, and 8 MB
    // kept for nothing, before); a header that turns out bad frees its own
    // before the task is joined.
    std::optional<SideTask<Result<AotCapture>>> document;
    auto file = SafetensorsFile::read(std::move(mapped), [&](std::map<std::string, std::string>& metadata) {
        const auto it = metadata.find(AotCapture::kMetadataKey);
        if (it == metadata.end() || document)
            return;
        std::string text = std::move(it->second);
        it->second.clear(); // taken: the key stays, its value empty (MetadataRead)
        const std::size_t size = text.size();
        text.append(simdjson::SIMDJSON_PADDING, '\0'); // within its capacity: no copy
        document.emplace([text = std::move(text), size, &path] {
            return parseCaptureDocument(std::string_view(text.data(), size), path, text.size());
        });
    });
    std::optional<Result<AotCapture>> parsed;
    if (document)
        parsed.emplace(document->get());
    if (!file)
        return file.error(); // the header's fault first, as when the two were read in turn
    auto shared = std::make_shared<const SafetensorsFile>(std::move(file).value());
    if (!parsed) {
        Error e;
        e.code = ErrorCode::BadMagic;
        e.message =
            "a safetensors file but not a Gapscope AOT capture: __metadata__ has no 'gapscope.aot_capture'";
        e.where.file = path;
        return e;
    }
    auto capture = std::move(*parsed);
    if (!capture)
        return capture;
    // Where the file now lives: the tensors the values point at are the kept file's.
    if (auto fault = resolveTensorNames(capture.value(), *shared))
        return makeError(fault->code, fault->message, path, fault->field);
    capture.value().file = shared;
    return capture;
}

Result<AotCapture> loadAotCapture(const std::string& path) {
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    file.value()->protectFromOutputs();
    return readAotCapture(file.value());
}

std::string aotCaptureDocument(const AotCapture& c) {
    json doc;
    doc["format"] = "gapscope.aot_capture";
    doc["version"] = c.version;
    doc["producer"] = c.producer;
    doc["reference_graph"] = c.reference_graph ? json(*c.reference_graph) : json(nullptr);
    doc["method"] = c.method;
    doc["etrecord_sha256"] = c.etrecord_sha256 ? json(*c.etrecord_sha256) : json(nullptr);
    if (c.etrecord_entries_sha256)
        doc["etrecord_entries_sha256"] = *c.etrecord_entries_sha256;
    if (c.layout_recorded)
        doc["layout_recorded"] = true;
    if (c.step)
        doc["step"] = *c.step;
    doc["inputs"] = c.inputs ? valuesJson(*c.inputs) : json(nullptr);
    doc["reference_outputs"] = c.reference_outputs ? valuesJson(*c.reference_outputs) : json(nullptr);
    json records = json::array();
    for (const auto& r : c.records) {
        json jr;
        jr["debug_handle"] = r.debug_handle;
        jr["ops"] = r.ops;
        json traces = json::object();
        for (const auto& [op, trace] : r.stack_traces)
            traces[op] = trace ? json(*trace) : json(nullptr);
        jr["stack_traces"] = traces;
        jr["sequence"] = r.sequence;
        jr["outputs"] = valuesJson(r.outputs);
        if (!r.quantization.empty()) {
            json q = json::array();
            for (const auto& p : r.quantization)
                q.push_back(p ? quantJson(*p) : json(nullptr));
            jr["quantization"] = q;
        }
        jr["axis_order"] = r.axis_order ? json(*r.axis_order) : json(nullptr);
        if (r.invalid_reason)
            jr["invalid_reason"] = *r.invalid_reason;
        records.push_back(jr);
    }
    doc["records"] = records;
    if (!c.taps.empty()) {
        const auto optional = [](const std::optional<std::string>& s) {
            return s ? json(*s) : json(nullptr);
        };
        json taps = json::array();
        for (const auto& t : c.taps)
            taps.push_back({{"output_index", t.output_index},
                            {"node_name", t.node_name},
                            {"op_target", t.op_target},
                            {"reducer", t.reducer},
                            {"fields", t.fields},
                            {"stack_trace", optional(t.stack_trace)},
                            {"module_path", optional(t.module_path)},
                            {"module_class", optional(t.module_class)},
                            {"debug_handle", t.debug_handle ? json(*t.debug_handle) : json(nullptr)}});
        doc["taps"] = taps;
    }
    return doc.dump();
}

std::optional<Error> writeAotCapture(const std::string& path, const AotCapture& capture,
                                     SafetensorsWriter& tensors) {
    tensors.setMetadata(AotCapture::kMetadataKey, aotCaptureDocument(capture));
    return tensors.write(path);
}

} // namespace gapscope
