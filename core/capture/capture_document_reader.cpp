#include "core/capture/capture_document_reader.h"

#include "core/common/json_depth.h"
#include "core/common/on_demand_json.h"
#include "core/common/python_json.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;
using simdjson::ondemand::value;

[[noreturn]] void fault(std::string field, std::string message, ErrorCode code = ErrorCode::Malformed) {
    throw JsonFault{std::move(field), std::move(message), code};
}

// The keys of one object seen so far: a key given twice is refused, since
// JSON parsers disagree on which of the two counts.
class Keys {
public:
    explicit Keys(std::string field) : m_field(std::move(field)) {}
    void see(unsigned index, std::string_view key) {
        if (m_seen & (1u << index))
            fault(m_field, "the key '" + std::string(key) + "' appears twice");
        m_seen |= 1u << index;
    }
    bool has(unsigned index) const { return m_seen & (1u << index); }

private:
    std::string m_field;
    unsigned m_seen = 0;
};

// The position of `key` in `keys`, or keys.size().
template <std::size_t N> unsigned indexOf(const std::string_view (&keys)[N], std::string_view key) {
    return static_cast<unsigned>(std::find(keys, keys + N, key) - keys);
}

bool isNull(value& v) {
    if (v.type().value() != json_type::null)
        return false;
    if (!v.is_null().value())
        throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
    return true;
}

std::optional<std::string> stringOf(value& v) {
    if (v.type().value() != json_type::string)
        return std::nullopt;
    return std::string(v.get_string().value());
}

std::optional<bool> boolOf(value& v) {
    if (v.type().value() != json_type::boolean)
        return std::nullopt;
    return v.get_bool().value();
}

// A value's "value" field, read before its "kind" may be known.
struct Scalar {
    json_type type = json_type::null;
    std::optional<std::int64_t> integer; // fits 64 bits signed
    double number = 0;
    bool boolean = false;
    std::string text;

    void read(value& v, std::size_t depth) {
        type = v.type().value();
        switch (type) {
        case json_type::number:
            switch (v.get_number_type().value()) {
            case number_type::signed_integer:
                integer = v.get_int64().value(), number = double(*integer);
                break;
            case number_type::unsigned_integer: number = double(v.get_uint64().value()); break;
            default: number = v.get_double().value(); break;
            }
            break;
        case json_type::boolean: boolean = v.get_bool().value(); break;
        case json_type::string: text = std::string(v.get_string().value()); break;
        default: validateSkipped(v, depth); break;
        }
    }

    // A number, or Python's names for the non-finite ones as strings.
    std::optional<double> asFloat() const {
        if (type == json_type::number)
            return number;
        if (type == json_type::string) {
            if (text == "NaN")
                return std::numeric_limits<double>::quiet_NaN();
            if (text == "Infinity")
                return std::numeric_limits<double>::infinity();
            if (text == "-Infinity")
                return -std::numeric_limits<double>::infinity();
        }
        return std::nullopt;
    }
};

class DocumentReader {
public:
    explicit DocumentReader(const SafetensorsFile& file) : m_file(file) {}

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
            "format",          "version", "producer", "reference_graph",   "method", "etrecord_sha256",
            "layout_recorded", "step",    "inputs",   "reference_outputs", "records"};
        Keys keys("");
        for (auto field : doc) {
            const std::string_view key = field.unescaped_key().value();
            const unsigned k = indexOf(kKeys, key);
            value f = field.value().value();
            if (k == std::size(kKeys)) {
                validateSkipped(f);
                continue;
            }
            keys.see(k, key);
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
                valueList(f, std::string(key), values, 0);
                (k == 8 ? out.inputs : out.reference_outputs) = std::move(values);
                break;
            }
            case 10: records(f, out.records); break;
            }
        }
        if (!keys.has(10))
            fault("records", "'records' must be a list");
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

    static void optionalString(value& v, std::optional<std::string>& out) {
        if (auto s = stringOf(v))
            out = std::move(s);
        else
            validateSkipped(v);
    }

    void records(value& v, std::vector<CaptureRecord>& out) {
        if (v.type().value() != json_type::array)
            fault("records", "'records' must be a list");
        for (auto item : v.get_array()) {
            CaptureRecord r;
            value rv = item.value();
            record(rv, "records[" + std::to_string(out.size()) + "]", r);
            out.push_back(std::move(r));
        }
    }

    void valueList(value& v, const std::string& field, std::vector<CaptureValue>& out, std::size_t depth) {
        if (v.type().value() != json_type::array)
            fault(field, "'" + field + "' must be a list of values");
        if (depth >= kMaxJsonDepth)
            throw simdjson::simdjson_error(simdjson::DEPTH_ERROR);
        for (auto item : v.get_array()) {
            CaptureValue c;
            value iv = item.value();
            captureValue(iv, field + "[" + std::to_string(out.size()) + "]", c, depth + 2);
            out.push_back(std::move(c));
        }
    }

    void captureValue(value& v, const std::string& field, CaptureValue& c, std::size_t depth) {
        static constexpr std::string_view kKeys[] = {"kind", "name", "value", "items"};
        const char* notAValue = "a value must be an object with a 'kind'";
        if (v.type().value() != json_type::object)
            fault(field, notAValue);
        Keys keys(field);
        std::optional<std::string> kind, name;
        Scalar scalar;
        for (auto f : v.get_object()) {
            const std::string_view key = f.unescaped_key().value();
            const unsigned k = indexOf(kKeys, key);
            value fv = f.value().value();
            if (k == std::size(kKeys)) {
                validateSkipped(fv, depth + 1);
                continue;
            }
            keys.see(k, key);
            if (k == 0 && !(kind = stringOf(fv)))
                fault(field, notAValue);
            else if (k == 1 && !(name = stringOf(fv)))
                validateSkipped(fv, depth + 1);
            else if (k == 2)
                scalar.read(fv, depth + 1);
            else if (k == 3)
                valueList(fv, field + ".items", c.items, depth);
        }
        if (!kind)
            fault(field, notAValue);
        if (*kind == "tensor") {
            c.kind = CaptureValue::Kind::Tensor;
            if (!name)
                fault(field, "a tensor value needs a 'name'");
            if (!m_file.find(*name))
                fault(field, "names tensor '" + *name + "', which the file does not hold");
            c.tensor = std::move(*name);
        } else if (*kind == "int") {
            c.kind = CaptureValue::Kind::Int;
            if (!scalar.integer)
                fault(field, "an int value needs an integer 'value' of 64 bits");
            c.int_value = *scalar.integer;
        } else if (*kind == "float") {
            c.kind = CaptureValue::Kind::Float;
            const auto f = keys.has(2) ? scalar.asFloat() : std::nullopt;
            if (!f)
                fault(field, "a float value needs a number (or \"NaN\", \"Infinity\", \"-Infinity\")");
            c.float_value = *f;
        } else if (*kind == "bool") {
            c.kind = CaptureValue::Kind::Bool;
            if (scalar.type != json_type::boolean)
                fault(field, "a bool value needs a boolean 'value'");
            c.bool_value = scalar.boolean;
        } else if (*kind == "null") {
            c.kind = CaptureValue::Kind::Null;
        } else if (*kind == "list") {
            c.kind = CaptureValue::Kind::List;
            if (!keys.has(3))
                fault(field, "a list value needs 'items'");
        } else {
            fault(field, "unknown value kind '" + *kind + "'");
        }
        if (c.kind != CaptureValue::Kind::List)
            c.items.clear();
    }

    void record(value& v, const std::string& field, CaptureRecord& r) {
        if (v.type().value() != json_type::object)
            fault(field, "a record must be an object");
        static constexpr std::string_view kKeys[] = {"debug_handle", "ops",           "stack_traces",
                                                     "sequence",     "outputs",       "quantization",
                                                     "axis_order",   "invalid_reason"};
        const std::string handleMessage = "'debug_handle' must be a non-empty list of positive integers";
        Keys keys(field);
        std::vector<std::optional<QuantParams>> quantization;
        bool quantized = false;
        for (auto f : v.get_object()) {
            const std::string_view key = f.unescaped_key().value();
            const unsigned k = indexOf(kKeys, key);
            value fv = f.value().value();
            if (k == std::size(kKeys)) {
                validateSkipped(fv);
                continue;
            }
            keys.see(k, key);
            switch (k) {
            case 0:
                if (fv.type().value() != json_type::array)
                    fault(field + ".debug_handle", handleMessage);
                for (auto h : fv.get_array()) {
                    const auto n = onDemandInt64(h.value());
                    if (!n || *n <= 0)
                        fault(field + ".debug_handle", handleMessage);
                    r.debug_handle.push_back(*n);
                }
                if (r.debug_handle.empty())
                    fault(field + ".debug_handle", handleMessage);
                break;
            case 1:
                if (fv.type().value() != json_type::array)
                    fault(field + ".ops", "'ops' must be a list of op names");
                for (auto op : fv.get_array()) {
                    value ov = op.value();
                    auto s = stringOf(ov);
                    if (!s)
                        fault(field + ".ops[" + std::to_string(r.ops.size()) + "]",
                              "an op name must be a string");
                    r.ops.push_back(std::move(*s));
                }
                break;
            case 2: stackTraces(fv, field, r); break;
            case 3: {
                const auto b = boolOf(fv);
                if (!b)
                    fault(field + ".sequence", "'sequence' must be true or false");
                r.sequence = *b;
                break;
            }
            case 4: valueList(fv, field + ".outputs", r.outputs, 0); break;
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
                    quant(qv, field + ".quantization[" + std::to_string(quantization.size()) + "]", p);
                    quantization.emplace_back(std::move(p));
                }
                break;
            case 6: axisOrder(fv, field, r); break;
            case 7:
                if (isNull(fv))
                    break;
                if (!(r.invalid_reason = stringOf(fv)))
                    fault(field + ".invalid_reason", "'invalid_reason' must be a string");
                break;
            }
        }
        if (!keys.has(0))
            fault(field + ".debug_handle", handleMessage);
        if (!keys.has(4))
            fault(field + ".outputs", "a record needs 'outputs'");
        if (!r.sequence && r.outputs.size() != 1)
            fault(field + ".outputs", "a record that is not a sequence holds exactly one output, not " +
                                          std::to_string(r.outputs.size()));
        if (quantized && quantization.size() != r.outputs.size())
            fault(field + ".quantization", "'quantization' needs one entry per output");
        r.quantization = std::move(quantization);
        if (r.invalid_reason)
            for (std::size_t k = 0; k < r.outputs.size(); ++k)
                if (r.outputs[k].kind != CaptureValue::Kind::Null)
                    fault(field + ".outputs[" + std::to_string(k) + "]",
                          "a record with an 'invalid_reason' holds no values, only nulls");
    }

    static void stackTraces(value& v, const std::string& field, CaptureRecord& r) {
        if (v.type().value() != json_type::object)
            return validateSkipped(v);
        for (auto f : v.get_object()) {
            std::string op(f.unescaped_key().value());
            for (const auto& [seen, trace] : r.stack_traces)
                if (seen == op)
                    fault(field + ".stack_traces", "the key '" + op + "' appears twice");
            value fv = f.value().value();
            auto trace = stringOf(fv);
            if (!trace)
                validateSkipped(fv);
            r.stack_traces.emplace_back(std::move(op), std::move(trace));
        }
    }

    static void axisOrder(value& v, const std::string& field, CaptureRecord& r) {
        if (v.type().value() != json_type::array)
            return validateSkipped(v);
        std::vector<std::int64_t> order;
        for (auto a : v.get_array())
            order.push_back(onDemandInt64(a.value()).value_or(-1));
        auto sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i)
            if (sorted[i] != static_cast<std::int64_t>(i))
                fault(field + ".axis_order", "'axis_order' must be a permutation of 0..rank-1");
        r.axis_order = std::move(order);
    }

    // A number or a non-empty list of numbers (integers when T is), appended to
    // `dst`; false when any entry has another type.
    template <typename T> static bool numberList(value& v, std::vector<T>& dst) {
        auto one = [&dst](value x) {
            if constexpr (std::is_integral_v<T>) {
                const auto n = onDemandInt64(x);
                if (!n)
                    return false;
                dst.push_back(*n);
            } else {
                if (x.type().value() != json_type::number)
                    return false;
                dst.push_back(x.get_double().value());
            }
            return true;
        };
        if (v.type().value() != json_type::array)
            return one(v);
        bool ok = true;
        for (auto x : v.get_array()) {
            if (!ok)
                validateSkipped(x.value());
            else
                ok = one(x.value());
        }
        return ok && !dst.empty();
    }

    static void quant(value& v, const std::string& field, QuantParams& q) {
        if (v.type().value() != json_type::object)
            fault(field, "quantization parameters must be an object");
        static constexpr std::string_view kKeys[] = {"scheme", "scale", "zero_point", "axis",
                                                     "dtype",  "qmin",  "qmax"};
        Keys keys(field);
        std::optional<std::string> scheme, dtype;
        bool scaleOk = false, zeroOk = false, dtypeOk = true;
        std::optional<std::int64_t> axis, qmin, qmax;
        for (auto f : v.get_object()) {
            const std::string_view key = f.unescaped_key().value();
            const unsigned k = indexOf(kKeys, key);
            value fv = f.value().value();
            if (k == std::size(kKeys)) {
                validateSkipped(fv);
                continue;
            }
            keys.see(k, key);
            switch (k) {
            case 0: optionalString(fv, scheme); break;
            case 1: scaleOk = numberList(fv, q.scale); break;
            case 2: zeroOk = numberList(fv, q.zero_point); break;
            case 3: axis = onDemandInt64(fv); break;
            case 4:
                optionalString(fv, dtype);
                dtypeOk = dtype.has_value();
                break;
            case 5: qmin = onDemandInt64(fv); break;
            case 6: qmax = onDemandInt64(fv); break;
            }
        }
        if (scheme != std::string("per_tensor") && scheme != std::string("per_channel"))
            fault(field, "quantization 'scheme' must be per_tensor or per_channel");
        q.per_channel = *scheme == "per_channel";
        if (!scaleOk)
            fault(field + ".scale", "'scale' must be a number or a non-empty list of numbers");
        if (!zeroOk)
            fault(field + ".zero_point", "'zero_point' must be an integer or a list of integers");
        if (q.scale.size() != q.zero_point.size())
            fault(field, "'scale' and 'zero_point' differ in length");
        if (!q.per_channel && q.scale.size() != 1)
            fault(field, "per_tensor quantization has exactly one scale");
        if (q.per_channel) {
            if (!axis)
                fault(field + ".axis", "per_channel quantization needs an integer 'axis'");
            q.axis = axis;
        }
        for (double s : q.scale)
            if (!(s > 0) || !std::isfinite(s))
                fault(field + ".scale", "every scale must be positive and finite");
        if (!dtypeOk)
            fault(field + ".dtype", "'dtype' must be a string");
        q.dtype = dtype.value_or("");
        if (!qmin || !qmax)
            fault(field, "quantization needs integer 'qmin' and 'qmax'");
        q.qmin = *qmin;
        q.qmax = *qmax;
        if (q.qmin > q.qmax)
            fault(field, "qmin is larger than qmax");
    }

    const SafetensorsFile& m_file;
};

// One reading of `text`; `normalized` maps its byte offsets back when it is
// Python's JSON rewritten.
Result<AotCapture> readOnce(std::string_view text, const SafetensorsFile& file, const std::string& path,
                            const NormalizedJson* normalized) {
    OnDemandJson json(text);
    AotCapture capture;
    try {
        simdjson::ondemand::object doc;
        if (const auto error = json.document().get_object().get(doc)) {
            if (error != simdjson::INCORRECT_TYPE)
                throw simdjson::simdjson_error(error);
            fault("", "the metadata document is not a gapscope.aot_capture (missing or wrong 'format')");
        }
        DocumentReader(file).read(doc, capture);
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

Result<AotCapture> readCaptureDocument(std::string_view text, const SafetensorsFile& file,
                                       const std::string& path) {
    auto capture = readOnce(text, file, path, nullptr);
    if (capture)
        return capture;
    // Python's json writes a non-finite float as a bare NaN, which is not JSON.
    // Rewriting costs a copy, so it is done only when the document needs it.
    const NormalizedJson normalized = normalizePythonJson(text);
    if (normalized.replaced_at.empty())
        return capture;
    return readOnce(normalized.text, file, path, &normalized);
}

} // namespace gapscope
