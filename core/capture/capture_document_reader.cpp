#include "core/capture/capture_document_reader.h"

#include "core/capture/capture_tensor_names.h"
#include "core/capture/capture_value_reader.h"
#include "core/capture/ondemand_fields.h"
#include "core/common/json_depth.h"
#include "core/common/on_demand_json.h"
#include "core/common/python_json.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

using namespace ondemand_fields;
using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;
using simdjson::ondemand::value;

class DocumentReader {
public:
    // `textSize`: the document's bytes, which bound how many records it can hold.
    explicit DocumentReader(std::size_t textSize) : m_textSize(textSize) {}

    void read(simdjson::ondemand::object doc, AotCapture& out) {
        // The format and the version first, wherever they stand: a document of
        // another kind or version is named as such before anything in it is read.
        value v;
        std::optional<std::string> format;
        if (!doc.find_field_unordered("format").get(v))
            format = stringOf(v);
        if (format != std::string("gapscope.aot_capture"))
            fault("", "the metadata document is not a gapscope.aot_capture (missing or wrong 'format')");
        if (doc.find_field_unordered("version").get(v))
            fault("version", "'version' must be an integer");
        out.version = version(v);
        doc.reset().value();

        static constexpr std::string_view kKeys[] = {
            "format", "version",           "producer",        "reference_graph",
            "method", "etrecord_sha256",   "layout_recorded", "step",
            "inputs", "reference_outputs", "records",         "etrecord_entries_sha256",
            "taps"};
        const Keys keys = forEachKey(doc, kKeys, "", [&](unsigned k, std::string_view, value& f) {
            switch (k) {
            case 0:
            case 1: break; // read above
            case 2: producer(f, out); break;
            case 3: optionalString(f, out.reference_graph); break;
            case 4: {
                std::optional<std::string> method;
                optionalString(f, method);
                if (method)
                    out.method = *method;
                break;
            }
            case 5: optionalString(f, out.etrecord_sha256); break;
            case 6:
                if (isNull(f))
                    break;
                if (const auto b = boolOf(f))
                    out.layout_recorded = *b;
                else
                    fault("layout_recorded", "'layout_recorded' must be true or false");
                break;
            case 7:
                if (isNull(f))
                    break;
                out.step = onDemandUint64(f);
                if (!out.step)
                    fault("step", "'step' must be an integer of 0 or more");
                break;
            case 8:
            case 9: {
                if (isNull(f))
                    break;
                std::vector<CaptureValue> values;
                readCaptureValues(f, JsonPath(kKeys[k]), values, 0);
                (k == 8 ? out.inputs : out.reference_outputs) = std::move(values);
                break;
            }
            case 10: records(f, out.records); break;
            case 11: optionalString(f, out.etrecord_entries_sha256); break;
            case 12: taps(f, out.taps); break;
            }
        });
        if (!keys.has(10))
            fault("records", "'records' must be a list");
        // Each tap's value is a program output: one the reference holds, and one tap's only.
        const std::size_t outputs = out.reference_outputs ? out.reference_outputs->size() : 0;
        std::vector<bool> tapped(outputs, false);
        for (std::size_t t = 0; t < out.taps.size(); ++t) {
            const std::size_t at = out.taps[t].output_index;
            const JsonPath where(JsonPath(JsonPath("taps"), t), "output_index");
            if (at >= outputs)
                fault(where, "tap '" + out.taps[t].node_name + "' is program output " + std::to_string(at) +
                                 ", but the capture holds " + std::to_string(outputs) + " reference outputs");
            if (tapped[at])
                fault(where, "two taps are program output " + std::to_string(at));
            tapped[at] = true;
        }
    }

private:
    static int version(value& v) {
        if (v.type().value() != json_type::number ||
            v.get_number_type().value() == number_type::floating_point_number)
            fault("version", "'version' must be an integer");
        // Compared whole, never narrowed: 4294967297 is not version 1.
        std::string_view raw = v.raw_json_token();
        raw = raw.substr(0, raw.find_last_not_of(" \t\n\r") + 1);
        const auto n = onDemandInt64(v);
        if (!n || *n < 1 || *n > AotCapture::kVersion)
            fault("version",
                  "capture format version " + std::string(raw) +
                      " is not supported (this Gapscope reads version " +
                      std::to_string(AotCapture::kVersion) + ")",
                  ErrorCode::Unsupported);
        return static_cast<int>(*n);
    }

    static void producer(value& v, AotCapture& out) {
        if (v.type().value() != json_type::object)
            return validateSkipped(v);
        for (auto field : v.get_object()) {
            std::string key(field.unescaped_key().value());
            value f = field.value().value();
            if (const auto s = stringOf(f)) {
                if (!out.producer.emplace(key, *s).second)
                    fault("producer", "the key '" + key + "' appears twice");
            } else {
                validateSkipped(f);
            }
        }
    }

    void records(value& v, std::vector<CaptureRecord>& out) {
        if (v.type().value() != json_type::array)
            fault("records", "'records' must be a list");
        const JsonPath list("records");
        // Room for the records a document of this size usually holds (a record
        // takes 128 bytes or more in every writer's documents, stack traces
        // aside): growing the list moved every record read so far, a tenth of
        // reading a 50,000-record document. Where records are shorter, it grows.
        out.reserve(m_textSize / 128);
        for (auto item : v.get_array()) {
            CaptureRecord r;
            value rv = item.value();
            record(rv, JsonPath(list, out.size()), r);
            out.push_back(std::move(r));
        }
    }

    void record(value& v, const JsonPath& field, CaptureRecord& r) {
        if (v.type().value() != json_type::object)
            fault(field, "a record must be an object");
        static constexpr std::string_view kKeys[] = {"debug_handle", "ops",           "stack_traces",
                                                     "sequence",     "outputs",       "quantization",
                                                     "axis_order",   "invalid_reason"};
        static constexpr const char* handleMessage =
            "'debug_handle' must be a non-empty list of positive integers";
        std::vector<std::optional<QuantParams>> quantization;
        bool quantized = false;
        const Keys keys =
            forEachKey(v.get_object().value(), kKeys, field, [&](unsigned k, std::string_view, value& fv) {
                switch (k) {
                case 0:
                    if (fv.type().value() != json_type::array)
                        fault(JsonPath(field, "debug_handle"), handleMessage);
                    for (auto h : fv.get_array()) {
                        const auto n = onDemandInt64(h.value());
                        if (!n || *n <= 0)
                            fault(JsonPath(field, "debug_handle"), handleMessage);
                        r.debug_handle.push_back(*n);
                    }
                    if (r.debug_handle.empty())
                        fault(JsonPath(field, "debug_handle"), handleMessage);
                    break;
                case 1:
                    if (fv.type().value() != json_type::array)
                        fault(JsonPath(field, "ops"), "'ops' must be a list of op names");
                    for (auto op : fv.get_array()) {
                        value ov = op.value();
                        auto s = stringOf(ov);
                        if (!s)
                            fault(JsonPath(JsonPath(field, "ops"), r.ops.size()),
                                  "an op name must be a string");
                        r.ops.push_back(std::move(*s));
                    }
                    break;
                case 2: stackTraces(fv, field, r); break;
                case 3: {
                    const auto b = boolOf(fv);
                    if (!b)
                        fault(JsonPath(field, "sequence"), "'sequence' must be true or false");
                    r.sequence = *b;
                    break;
                }
                case 4: readCaptureValues(fv, JsonPath(field, "outputs"), r.outputs, 0); break;
                case 5:
                    if (fv.type().value() != json_type::array) {
                        validateSkipped(fv);
                        break;
                    }
                    quantized = true;
                    for (auto q : fv.get_array()) {
                        value qv = q.value();
                        if (isNull(qv)) {
                            quantization.emplace_back();
                            continue;
                        }
                        QuantParams p;
                        readQuantParams(qv, JsonPath(JsonPath(field, "quantization"), quantization.size()),
                                        p);
                        quantization.emplace_back(std::move(p));
                    }
                    break;
                case 6: axisOrder(fv, field, r); break;
                case 7:
                    if (isNull(fv))
                        break;
                    if (!(r.invalid_reason = stringOf(fv)))
                        fault(JsonPath(field, "invalid_reason"), "'invalid_reason' must be a string");
                    break;
                }
            });
        if (!keys.has(0))
            fault(JsonPath(field, "debug_handle"), handleMessage);
        if (!keys.has(4))
            fault(JsonPath(field, "outputs"), "a record needs 'outputs'");
        if (!r.sequence && r.outputs.size() != 1)
            fault(JsonPath(field, "outputs"),
                  "a record that is not a sequence holds exactly one output, not " +
                      std::to_string(r.outputs.size()));
        if (quantized && quantization.size() != r.outputs.size())
            fault(JsonPath(field, "quantization"), "'quantization' needs one entry per output");
        r.quantization = std::move(quantization);
        if (r.invalid_reason)
            for (std::size_t k = 0; k < r.outputs.size(); ++k)
                if (r.outputs[k].kind != CaptureValue::Kind::Null)
                    fault(JsonPath(JsonPath(field, "outputs"), k),
                          "a record with an 'invalid_reason' holds no values, only nulls");
    }

    static void taps(value& v, std::vector<CaptureTap>& out) {
        if (isNull(v))
            return;
        if (v.type().value() != json_type::array)
            fault("taps", "'taps' must be a list");
        const JsonPath list("taps");
        for (auto item : v.get_array()) {
            value tv = item.value();
            CaptureTap t;
            tap(tv, JsonPath(list, out.size()), t);
            out.push_back(std::move(t));
        }
    }

    static void tap(value& v, const JsonPath& field, CaptureTap& t) {
        if (v.type().value() != json_type::object)
            fault(field, "a tap must be an object");
        static constexpr std::string_view kKeys[] = {"output_index", "node_name",    "op_target",
                                                     "reducer",      "fields",       "stack_trace",
                                                     "module_path",  "module_class", "debug_handle"};
        const auto text = [&](value& fv, unsigned k, std::string& into) {
            auto s = stringOf(fv);
            if (!s)
                fault(JsonPath(field, kKeys[k]), "'" + std::string(kKeys[k]) + "' must be a string");
            into = std::move(*s);
        };
        const auto optionalText = [&](value& fv, unsigned k, std::optional<std::string>& into) {
            if (isNull(fv))
                return;
            if (!(into = stringOf(fv)))
                fault(JsonPath(field, kKeys[k]), "'" + std::string(kKeys[k]) + "' must be a string or null");
        };
        static constexpr const char* handleMessage =
            "'debug_handle' must be null or a non-empty list of positive integers";
        const Keys keys =
            forEachKey(v.get_object().value(), kKeys, field, [&](unsigned k, std::string_view, value& fv) {
                switch (k) {
                case 0: {
                    const auto n = onDemandUint64(fv);
                    if (!n)
                        fault(JsonPath(field, "output_index"),
                              "'output_index' must be an integer of 0 or more");
                    t.output_index = static_cast<std::size_t>(*n);
                    break;
                }
                case 1: text(fv, k, t.node_name); break;
                case 2: text(fv, k, t.op_target); break;
                case 3:
                    text(fv, k, t.reducer);
                    if (t.reducer.empty())
                        fault(JsonPath(field, "reducer"), "'reducer' must name a reducer");
                    break;
                case 4:
                    if (fv.type().value() != json_type::array)
                        fault(JsonPath(field, "fields"), "'fields' must be a list of names");
                    for (auto f : fv.get_array()) {
                        value name = f.value();
                        auto s = stringOf(name);
                        if (!s)
                            fault(JsonPath(JsonPath(field, "fields"), t.fields.size()),
                                  "a field name must be a string");
                        t.fields.push_back(std::move(*s));
                    }
                    break;
                case 5: optionalText(fv, k, t.stack_trace); break;
                case 6: optionalText(fv, k, t.module_path); break;
                case 7: optionalText(fv, k, t.module_class); break;
                case 8: {
                    if (isNull(fv))
                        break;
                    if (fv.type().value() != json_type::array)
                        fault(JsonPath(field, "debug_handle"), handleMessage);
                    std::vector<std::int64_t> handle;
                    for (auto h : fv.get_array()) {
                        const auto n = onDemandInt64(h.value());
                        if (!n || *n <= 0)
                            fault(JsonPath(field, "debug_handle"), handleMessage);
                        handle.push_back(*n);
                    }
                    if (handle.empty())
                        fault(JsonPath(field, "debug_handle"), handleMessage);
                    t.debug_handle = std::move(handle);
                    break;
                }
                }
            });
        for (const unsigned required : {0u, 1u, 2u, 3u})
            if (!keys.has(required))
                fault(JsonPath(field, kKeys[required]), "a tap needs '" + std::string(kKeys[required]) + "'");
    }

    static void stackTraces(value& v, const JsonPath& field, CaptureRecord& r) {
        if (v.type().value() != json_type::object)
            return validateSkipped(v);
        for (auto f : v.get_object()) {
            std::string op(f.unescaped_key().value());
            for (const auto& [seen, trace] : r.stack_traces)
                if (seen == op)
                    fault(JsonPath(field, "stack_traces"), "the key '" + op + "' appears twice");
            value fv = f.value().value();
            auto trace = stringOf(fv);
            if (!trace)
                validateSkipped(fv);
            r.stack_traces.emplace_back(std::move(op), std::move(trace));
        }
    }

    static void axisOrder(value& v, const JsonPath& field, CaptureRecord& r) {
        if (isNull(v))
            return; // unknown (or, with layout_recorded, the same layout)
        // Anything else than a list of integers is refused: read as null, a
        // string "0231" would mean "same layout" and a channels-last tensor
        // would be compared element for element in the wrong order.
        if (v.type().value() != json_type::array)
            fault(JsonPath(field, "axis_order"),
                  "'axis_order' must be a list of integers (a permutation) or null");
        std::vector<std::int64_t> order;
        for (auto a : v.get_array())
            order.push_back(onDemandInt64(a.value()).value_or(-1));
        auto sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i)
            if (sorted[i] != static_cast<std::int64_t>(i))
                fault(JsonPath(field, "axis_order"), "'axis_order' must be a permutation of 0..rank-1");
        r.axis_order = std::move(order);
    }

    std::size_t m_textSize;
};

// One reading of `text`; `normalized` maps its byte offsets back when it is
// Python's JSON rewritten.
Result<AotCapture> readOnce(std::string_view text, std::size_t readable, const std::string& path,
                            const NormalizedJson* normalized) {
    OnDemandJson json(text, readable);
    AotCapture capture;
    try {
        simdjson::ondemand::object doc;
        if (const auto error = json.document().get_object().get(doc)) {
            if (error != simdjson::INCORRECT_TYPE)
                throw simdjson::simdjson_error(error);
            fault("", "the metadata document is not a gapscope.aot_capture (missing or wrong 'format')");
        }
        DocumentReader(text.size()).read(doc, capture);
        json.requireEnd();
    } catch (const simdjson::simdjson_error& e) {
        std::string message = "the gapscope.aot_capture document is " + onDemandMessage(e);
        if (auto at = json.offset(e.error()))
            message += " (at byte " + std::to_string(normalized ? normalized->originalOffset(*at) : *at) +
                       " of the document)";
        return makeError(ErrorCode::Malformed, std::move(message), path, AotCapture::kMetadataKey);
    } catch (const JsonFault& f) {
        return makeError(f.code, f.message, path, f.field);
    }
    return capture;
}

} // namespace

Result<AotCapture> parseCaptureDocument(std::string_view text, const std::string& path,
                                        std::size_t readable) {
    auto capture = readOnce(text, readable, path, nullptr);
    if (capture)
        return capture;
    // Python's json writes a non-finite float as a bare NaN, which is not JSON.
    // Rewriting costs a copy, so it is done only when the document needs it.
    const NormalizedJson normalized = normalizePythonJson(text);
    if (normalized.replaced_at.empty())
        return capture;
    return readOnce(normalized.text, 0, path, &normalized);
}

Result<AotCapture> readCaptureDocument(std::string_view text, const SafetensorsFile& file,
                                       const std::string& path) {
    auto capture = parseCaptureDocument(text, path);
    if (!capture)
        return capture;
    if (auto fault = resolveTensorNames(capture.value(), file))
        return makeError(fault->code, fault->message, path, fault->field);
    return capture;
}

} // namespace gapscope
