#include "core/capture/capture_value_reader.h"

#include "core/capture/ondemand_fields.h"
#include "core/common/json_depth.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

namespace gapscope {

namespace {

using namespace ondemand_fields;
using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;

void captureValue(value& v, const JsonPath& field, CaptureValue& c, std::size_t depth);

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

void valueList(value& v, const JsonPath& field, std::vector<CaptureValue>& out, std::size_t depth) {
    if (v.type().value() != json_type::array)
        fault(field, "'" + field.str() + "' must be a list of values");
    if (depth >= kMaxJsonDepth)
        throw simdjson::simdjson_error(simdjson::DEPTH_ERROR);
    for (auto item : v.get_array()) {
        CaptureValue c;
        value iv = item.value();
        captureValue(iv, JsonPath(field, out.size()), c, depth + 2);
        out.push_back(std::move(c));
    }
}

void captureValue(value& v, const JsonPath& field, CaptureValue& c, std::size_t depth) {
    static constexpr std::string_view kKeys[] = {"kind", "name", "value", "items"};
    const char* notAValue = "a value must be an object with a 'kind'";
    if (v.type().value() != json_type::object)
        fault(field, notAValue);
    std::optional<std::string> name;
    std::optional<std::string_view> kind; // into the parser's buffer, which outlives the value
    Scalar scalar;
    const Keys keys = forEachKey(
        v.get_object().value(), kKeys, field,
        [&](unsigned k, std::string_view, value& fv) {
            if (k == 0 && !(kind = stringViewOf(fv)))
                fault(field, notAValue);
            else if (k == 1 && !(name = stringOf(fv)))
                validateSkipped(fv, depth + 1);
            else if (k == 2)
                scalar.read(fv, depth + 1);
            else if (k == 3)
                valueList(fv, JsonPath(field, "items"), c.items, depth);
        },
        depth + 1);
    if (!kind)
        fault(field, notAValue);
    if (*kind == "tensor") {
        c.kind = CaptureValue::Kind::Tensor;
        if (!name)
            fault(field, "a tensor value needs a 'name'");
        c.tensor = std::move(*name); // found in the file by resolveTensorNames
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
        fault(field, "unknown value kind '" + std::string(*kind) + "'");
    }
    if (c.kind != CaptureValue::Kind::List)
        c.items.clear();
}
// A number or a non-empty list of numbers (integers when T is), appended to
// `dst`; false when any entry has another type.
template <typename T> bool numberList(value& v, std::vector<T>& dst) {
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

std::string shortNumber(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

void quant(value& v, const JsonPath& field, QuantParams& q) {
    if (v.type().value() != json_type::object)
        fault(field, "quantization parameters must be an object");
    static constexpr std::string_view kKeys[] = {"scheme", "scale", "zero_point", "axis",
                                                 "dtype",  "qmin",  "qmax"};
    std::optional<std::string> scheme, dtype;
    bool scaleOk = false, zeroOk = false, dtypeOk = true;
    std::optional<std::int64_t> axis, qmin, qmax;
    forEachKey(v.get_object().value(), kKeys, field, [&](unsigned k, std::string_view, value& fv) {
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
    });
    if (scheme != std::string("per_tensor") && scheme != std::string("per_channel"))
        fault(field, "quantization 'scheme' must be per_tensor or per_channel");
    q.per_channel = *scheme == "per_channel";
    if (!scaleOk)
        fault(JsonPath(field, "scale"), "'scale' must be a number or a non-empty list of numbers");
    if (!zeroOk)
        fault(JsonPath(field, "zero_point"), "'zero_point' must be an integer or a list of integers");
    if (q.scale.size() != q.zero_point.size())
        fault(field, "'scale' and 'zero_point' differ in length");
    if (!q.per_channel && q.scale.size() != 1)
        fault(field, "per_tensor quantization has exactly one scale");
    if (q.per_channel) {
        if (!axis)
            fault(JsonPath(field, "axis"), "per_channel quantization needs an integer 'axis'");
        q.axis = axis;
    }
    for (double s : q.scale)
        if (!(s > 0) || !std::isfinite(s))
            fault(JsonPath(field, "scale"), "every scale must be positive and finite");
    // A scale the kernels hold as float32: below float32's smallest normal
    // number it is denormal (or zero) there, and dequantised values lose their
    // digits; above its largest, infinite.
    for (double s : q.scale)
        if (s < double(std::numeric_limits<float>::min()) || s > double(std::numeric_limits<float>::max()))
            fault(JsonPath(field, "scale"),
                  "scale " + shortNumber(s) +
                      " is not a normal float32 number (the kernels' scale): not usable");
    if (!dtypeOk)
        fault(JsonPath(field, "dtype"), "'dtype' must be a string");
    q.dtype = dtype.value_or("");
    const auto range = quantizedRange(q.dtype);
    if (!range)
        fault(JsonPath(field, "dtype"),
              "'" + q.dtype.substr(0, 40) +
                  "' is not a quantised dtype (int8, uint8, int16, uint16 or int32)");
    if (!qmin || !qmax)
        fault(field, "quantization needs integer 'qmin' and 'qmax'");
    q.qmin = *qmin;
    q.qmax = *qmax;
    if (q.qmin > q.qmax)
        fault(field, "qmin is larger than qmax");
    if (q.qmin < range->first || q.qmax > range->second)
        fault(field, "qmin..qmax " + std::to_string(q.qmin) + ".." + std::to_string(q.qmax) +
                         " lies outside " + q.dtype + "'s " + std::to_string(range->first) + ".." +
                         std::to_string(range->second));
    for (std::size_t k = 0; k < q.zero_point.size(); ++k)
        if (q.zero_point[k] < q.qmin || q.zero_point[k] > q.qmax)
            fault(JsonPath(field, "zero_point"),
                  "zero point " + std::to_string(q.zero_point[k]) +
                      (q.zero_point.size() > 1 ? " (channel " + std::to_string(k) + ")" : "") +
                      " lies outside qmin..qmax " + std::to_string(q.qmin) + ".." + std::to_string(q.qmax));
}

} // namespace

void readCaptureValues(simdjson::ondemand::value& v, const JsonPath& field, std::vector<CaptureValue>& out,
                       std::size_t depth) {
    valueList(v, field, out, depth);
}

void readQuantParams(simdjson::ondemand::value& v, const JsonPath& field, QuantParams& q) {
    quant(v, field, q);
}

std::optional<std::pair<std::int64_t, std::int64_t>> quantizedRange(const std::string& dtype) {
    if (dtype == "int8")
        return std::pair<std::int64_t, std::int64_t>{-128, 127};
    if (dtype == "uint8")
        return std::pair<std::int64_t, std::int64_t>{0, 255};
    if (dtype == "int16")
        return std::pair<std::int64_t, std::int64_t>{-32768, 32767};
    if (dtype == "uint16")
        return std::pair<std::int64_t, std::int64_t>{0, 65535};
    if (dtype == "int32")
        return std::pair<std::int64_t, std::int64_t>{std::numeric_limits<std::int32_t>::min(),
                                                     std::numeric_limits<std::int32_t>::max()};
    return std::nullopt;
}

} // namespace gapscope
