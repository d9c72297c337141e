#include "core/capture/aot_capture.h"

#include "core/capture/capture_document_scan.h"
#include "core/capture/safetensors_writer.h"
#include "core/common/json_depth.h"
#include "core/common/json_int.h"
#include "core/common/python_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace gapscope {

using json = nlohmann::ordered_json;

const SafetensorsTensor* AotCapture::tensor(const CaptureValue& v) const {
    if (v.kind != CaptureValue::Kind::Tensor || !file)
        return nullptr;
    return file->find(v.tensor);
}

namespace {

// Parses the document; errors carry the JSON path of the offending field.
class DocumentReader {
public:
    DocumentReader(const std::string& path, const SafetensorsFile& file) : m_path(path), m_file(file) {}

    std::optional<Error> read(const json& doc, AotCapture& out) {
        if (!doc.is_object() || doc.value("format", "") != "gapscope.aot_capture")
            return fail("",
                        "the metadata document is not a gapscope.aot_capture (missing or wrong 'format')");
        if (!doc.contains("version") || !doc["version"].is_number_integer())
            return fail("version", "'version' must be an integer");
        // Compared whole, never narrowed: 4294967297 is not version 1.
        const std::string version = doc["version"].dump();
        if (!doc["version"].is_number_unsigned() || doc["version"].get<std::uint64_t>() < 1 ||
            doc["version"].get<std::uint64_t>() > static_cast<std::uint64_t>(AotCapture::kVersion))
            return fail("version",
                        "capture format version " + version +
                            " is not supported (this Gapscope reads version " +
                            std::to_string(AotCapture::kVersion) + ")",
                        ErrorCode::Unsupported);
        out.version = static_cast<int>(doc["version"].get<std::uint64_t>());
        if (doc.contains("producer") && doc["producer"].is_object())
            for (auto it = doc["producer"].begin(); it != doc["producer"].end(); ++it)
                if (it.value().is_string())
                    out.producer[it.key()] = it.value().get<std::string>();
        if (auto v = optionalString(doc, "reference_graph"))
            out.reference_graph = *v;
        if (auto v = optionalString(doc, "method"))
            out.method = *v;
        if (auto v = optionalString(doc, "etrecord_sha256"))
            out.etrecord_sha256 = *v;
        if (doc.contains("layout_recorded") && !doc["layout_recorded"].is_null()) {
            if (!doc["layout_recorded"].is_boolean())
                return fail("layout_recorded", "'layout_recorded' must be true or false");
            out.layout_recorded = doc["layout_recorded"].get<bool>();
        }
        if (doc.contains("step") && !doc["step"].is_null()) {
            if (!doc["step"].is_number_unsigned())
                return fail("step", "'step' must be an integer of 0 or more");
            out.step = doc["step"].get<std::uint64_t>();
        }
        for (const char* key : {"inputs", "reference_outputs"}) {
            if (!doc.contains(key) || doc[key].is_null())
                continue;
            std::vector<CaptureValue> values;
            if (auto err = valueList(doc[key], key, values))
                return err;
            (std::string(key) == "inputs" ? out.inputs : out.reference_outputs) = std::move(values);
        }
        if (!doc.contains("records") || !doc["records"].is_array())
            return fail("records", "'records' must be a list");
        for (std::size_t i = 0; i < doc["records"].size(); ++i) {
            CaptureRecord r;
            if (auto err = record(doc["records"][i], "records[" + std::to_string(i) + "]", r))
                return err;
            out.records.push_back(std::move(r));
        }
        return std::nullopt;
    }

private:
    Error fail(const std::string& field, std::string message, ErrorCode code = ErrorCode::Malformed) const {
        Error e;
        e.code = code;
        e.message = std::move(message);
        e.where.file = m_path;
        e.where.field = field;
        return e;
    }

    static std::optional<std::string> optionalString(const json& j, const char* key) {
        if (j.contains(key) && j[key].is_string())
            return j[key].get<std::string>();
        return std::nullopt;
    }

    std::optional<Error> valueList(const json& j, const std::string& field, std::vector<CaptureValue>& out) {
        if (!j.is_array())
            return fail(field, "'" + field + "' must be a list of values");
        for (std::size_t i = 0; i < j.size(); ++i) {
            CaptureValue v;
            if (auto err = value(j[i], field + "[" + std::to_string(i) + "]", v))
                return err;
            out.push_back(std::move(v));
        }
        return std::nullopt;
    }

    std::optional<Error> value(const json& j, const std::string& field, CaptureValue& v) {
        if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
            return fail(field, "a value must be an object with a 'kind'");
        const std::string kind = j["kind"].get<std::string>();
        if (kind == "tensor") {
            v.kind = CaptureValue::Kind::Tensor;
            if (!j.contains("name") || !j["name"].is_string())
                return fail(field, "a tensor value needs a 'name'");
            v.tensor = j["name"].get<std::string>();
            if (!m_file.find(v.tensor))
                return fail(field, "names tensor '" + v.tensor + "', which the file does not hold");
        } else if (kind == "int") {
            v.kind = CaptureValue::Kind::Int;
            if (!j.contains("value") || !jsonInt64(j["value"]))
                return fail(field, "an int value needs an integer 'value' of 64 bits");
            v.int_value = *jsonInt64(j["value"]);
        } else if (kind == "float") {
            v.kind = CaptureValue::Kind::Float;
            auto f = number(j.contains("value") ? j["value"] : json());
            if (!f)
                return fail(field, "a float value needs a number (or \"NaN\", \"Infinity\", \"-Infinity\")");
            v.float_value = *f;
        } else if (kind == "bool") {
            v.kind = CaptureValue::Kind::Bool;
            if (!j.contains("value") || !j["value"].is_boolean())
                return fail(field, "a bool value needs a boolean 'value'");
            v.bool_value = j["value"].get<bool>();
        } else if (kind == "null") {
            v.kind = CaptureValue::Kind::Null;
        } else if (kind == "list") {
            v.kind = CaptureValue::Kind::List;
            if (!j.contains("items"))
                return fail(field, "a list value needs 'items'");
            return valueList(j["items"], field + ".items", v.items);
        } else {
            return fail(field, "unknown value kind '" + kind + "'");
        }
        return std::nullopt;
    }

    static std::optional<double> number(const json& j) {
        if (j.is_number())
            return j.get<double>();
        if (j.is_string()) {
            const auto s = j.get<std::string>();
            if (s == "NaN")
                return std::numeric_limits<double>::quiet_NaN();
            if (s == "Infinity")
                return std::numeric_limits<double>::infinity();
            if (s == "-Infinity")
                return -std::numeric_limits<double>::infinity();
        }
        return std::nullopt;
    }

    // A scalar or a non-empty list, appended to dst; false if any entry has the wrong type.
    template <typename T> static bool numberList(const json& j, const char* key, std::vector<T>& dst) {
        if (!j.contains(key))
            return false;
        const json& v = j[key];
        auto one = [&dst](const json& x) {
            if constexpr (std::is_integral_v<T>) {
                if (!x.is_number_integer())
                    return false;
            } else if (!x.is_number()) {
                return false;
            }
            dst.push_back(x.get<T>());
            return true;
        };
        if (!v.is_array())
            return one(v);
        for (const auto& x : v)
            if (!one(x))
                return false;
        return !dst.empty();
    }

    std::optional<Error> quant(const json& j, const std::string& field, QuantParams& q) {
        if (!j.is_object())
            return fail(field, "quantization parameters must be an object");
        const std::string scheme = j.value("scheme", "");
        if (scheme != "per_tensor" && scheme != "per_channel")
            return fail(field, "quantization 'scheme' must be per_tensor or per_channel");
        q.per_channel = scheme == "per_channel";
        if (!numberList(j, "scale", q.scale))
            return fail(field + ".scale", "'scale' must be a number or a non-empty list of numbers");
        if (!numberList(j, "zero_point", q.zero_point))
            return fail(field + ".zero_point", "'zero_point' must be an integer or a list of integers");
        if (q.scale.size() != q.zero_point.size())
            return fail(field, "'scale' and 'zero_point' differ in length");
        if (!q.per_channel && q.scale.size() != 1)
            return fail(field, "per_tensor quantization has exactly one scale");
        if (q.per_channel) {
            if (!j.contains("axis") || !jsonInt64(j["axis"]))
                return fail(field + ".axis", "per_channel quantization needs an integer 'axis'");
            q.axis = *jsonInt64(j["axis"]);
        }
        for (double s : q.scale)
            if (!(s > 0) || !std::isfinite(s))
                return fail(field + ".scale", "every scale must be positive and finite");
        q.dtype = j.value("dtype", "");
        if (!j.contains("qmin") || !jsonInt64(j["qmin"]) || !j.contains("qmax") || !jsonInt64(j["qmax"]))
            return fail(field, "quantization needs integer 'qmin' and 'qmax'");
        q.qmin = *jsonInt64(j["qmin"]);
        q.qmax = *jsonInt64(j["qmax"]);
        if (q.qmin > q.qmax)
            return fail(field, "qmin is larger than qmax");
        return std::nullopt;
    }

    std::optional<Error> record(const json& j, const std::string& field, CaptureRecord& r) {
        if (!j.is_object())
            return fail(field, "a record must be an object");
        if (!j.contains("debug_handle") || !j["debug_handle"].is_array() || j["debug_handle"].empty())
            return fail(field + ".debug_handle",
                        "'debug_handle' must be a non-empty list of positive integers");
        for (const auto& h : j["debug_handle"]) {
            if (!jsonInt64(h) || *jsonInt64(h) <= 0)
                return fail(field + ".debug_handle",
                            "'debug_handle' must be a non-empty list of positive integers");
            r.debug_handle.push_back(*jsonInt64(h));
        }
        if (j.contains("ops")) {
            if (!j["ops"].is_array())
                return fail(field + ".ops", "'ops' must be a list of op names");
            for (std::size_t k = 0; k < j["ops"].size(); ++k) {
                if (!j["ops"][k].is_string())
                    return fail(field + ".ops[" + std::to_string(k) + "]", "an op name must be a string");
                r.ops.push_back(j["ops"][k].get<std::string>());
            }
        }
        if (j.contains("stack_traces") && j["stack_traces"].is_object())
            for (auto it = j["stack_traces"].begin(); it != j["stack_traces"].end(); ++it)
                r.stack_traces.emplace_back(it.key(),
                                            it.value().is_string()
                                                ? std::optional<std::string>(it.value().get<std::string>())
                                                : std::nullopt);
        r.sequence = j.value("sequence", false);
        if (!j.contains("outputs"))
            return fail(field + ".outputs", "a record needs 'outputs'");
        if (auto err = valueList(j["outputs"], field + ".outputs", r.outputs))
            return err;
        if (!r.sequence && r.outputs.size() != 1)
            return fail(field + ".outputs", "a record that is not a sequence holds exactly one output, not " +
                                                std::to_string(r.outputs.size()));
        if (j.contains("quantization") && j["quantization"].is_array()) {
            if (j["quantization"].size() != r.outputs.size())
                return fail(field + ".quantization", "'quantization' needs one entry per output");
            for (std::size_t i = 0; i < j["quantization"].size(); ++i) {
                const json& q = j["quantization"][i];
                if (q.is_null()) {
                    r.quantization.emplace_back();
                    continue;
                }
                QuantParams p;
                if (auto err = quant(q, field + ".quantization[" + std::to_string(i) + "]", p))
                    return err;
                r.quantization.emplace_back(std::move(p));
            }
        }
        if (j.contains("axis_order") && j["axis_order"].is_array()) {
            std::vector<std::int64_t> order;
            for (const auto& a : j["axis_order"])
                order.push_back(jsonInt64(a).value_or(-1));
            auto sorted = order;
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t i = 0; i < sorted.size(); ++i)
                if (sorted[i] != static_cast<std::int64_t>(i))
                    return fail(field + ".axis_order", "'axis_order' must be a permutation of 0..rank-1");
            r.axis_order = std::move(order);
        }
        if (j.contains("invalid_reason") && !j["invalid_reason"].is_null()) {
            if (!j["invalid_reason"].is_string())
                return fail(field + ".invalid_reason", "'invalid_reason' must be a string");
            r.invalid_reason = j["invalid_reason"].get<std::string>();
            for (std::size_t k = 0; k < r.outputs.size(); ++k)
                if (r.outputs[k].kind != CaptureValue::Kind::Null)
                    return fail(field + ".outputs[" + std::to_string(k) + "]",
                                "a record with an 'invalid_reason' holds no values, only nulls");
        }
        return std::nullopt;
    }

    const std::string& m_path;
    const SafetensorsFile& m_file;
};

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

Result<AotCapture> readAotCapture(std::shared_ptr<const MappedFile> mapped, JsonParse parse) {
    const std::string path = mapped->path();
    auto file = SafetensorsFile::read(std::move(mapped), parse);
    if (!file)
        return file.error();
    auto shared = std::make_shared<const SafetensorsFile>(std::move(file).value());
    auto it = shared->metadata().find(AotCapture::kMetadataKey);
    if (it == shared->metadata().end()) {
        Error e;
        e.code = ErrorCode::BadMagic;
        e.message =
            "a safetensors file but not a Gapscope AOT capture: __metadata__ has no 'gapscope.aot_capture'";
        e.where.file = path;
        return e;
    }
    // The usual document in one pass, without a DOM (at 50,000 records the
    // DOM and its reader were a third of opening a session); anything else, a
    // document with a fault included, is read below, which says what is wrong.
    if (parse == JsonParse::Scan)
        if (auto scanned = scanCaptureDocument(it->second, *shared)) {
            scanned->file = shared;
            return std::move(*scanned);
        }
    if (const auto at = jsonTooDeep(it->second)) {
        Error e =
            makeError(ErrorCode::Malformed,
                      "the gapscope.aot_capture document nests deeper than " + std::to_string(kMaxJsonDepth) +
                          " levels (at byte " + std::to_string(*at) + " of the document)",
                      path, AotCapture::kMetadataKey);
        return e;
    }
    json doc;
    try {
        doc = json::parse(normalizePythonJson(it->second).text);
    } catch (const json::exception& ex) { // not JSON, or a number out of range
        Error e;
        e.code = ErrorCode::Malformed;
        e.message = std::string("the gapscope.aot_capture document is not valid JSON: ") + ex.what();
        e.where.file = path;
        e.where.field = AotCapture::kMetadataKey;
        return e;
    }
    AotCapture capture;
    capture.file = shared;
    try {
        if (auto err = DocumentReader(path, *shared).read(doc, capture))
            return std::move(*err);
    } catch (const std::exception& ex) { // a field of an unexpected JSON type, a number out of range
        return makeError(ErrorCode::Malformed,
                         std::string("the gapscope.aot_capture document cannot be read: ") + ex.what(), path,
                         AotCapture::kMetadataKey);
    }
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
    return doc.dump();
}

std::optional<Error> writeAotCapture(const std::string& path, const AotCapture& capture,
                                     SafetensorsWriter& tensors) {
    tensors.setMetadata(AotCapture::kMetadataKey, aotCaptureDocument(capture));
    return tensors.write(path);
}

} // namespace gapscope
