#include "core/capture/capture_document_scan.h"

#include "core/common/json_scanner.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <type_traits>

namespace gapscope {

namespace {

// Lists inside lists of values: deeper goes to the DOM reader (with its own
// depth check), so the recursion here is bounded.
constexpr int kMaxListDepth = 64;
// Stack traces a record may give (one per op of its group) for this scan.
constexpr std::size_t kMaxStackTraces = 256;

// The index of `key` among `keys`, or -1.
int keyIndex(const std::string& key, std::initializer_list<const char*> keys) {
    int i = 0;
    for (const char* k : keys) {
        if (key == k)
            return i;
        ++i;
    }
    return -1;
}

// An object's members; `member(key)` reads each value. A key given twice
// fails (a JSON parser keeps the last; the DOM reader then reads it).
template <typename F> bool object(JsonScanner& s, F&& member) {
    if (!s.take('{'))
        return false;
    if (s.take('}'))
        return true;
    std::string key;
    do {
        if (!s.string(key) || !s.take(':') || !member(key))
            return false;
    } while (s.take(','));
    return s.take('}');
}

// An object whose keys are among `keys`, each at most once; `seen` gets a bit
// per key read.
template <typename F>
bool knownObject(JsonScanner& s, std::initializer_list<const char*> keys, unsigned& seen, F&& member) {
    seen = 0;
    return object(s, [&](const std::string& key) {
        const int k = keyIndex(key, keys);
        if (k < 0 || (seen & 1u << k))
            return false;
        seen |= 1u << k;
        return member(k);
    });
}

template <typename F> bool array(JsonScanner& s, F&& element) {
    if (!s.take('['))
        return false;
    if (s.take(']'))
        return true;
    do {
        if (!element())
            return false;
    } while (s.take(','));
    return s.take(']');
}

// A value's "value": whichever JSON scalar it is, read before "kind" says what
// it must be (the keys come in any order).
struct Scalar {
    enum class Kind { Number, String, Bool, Null } kind = Kind::Null;
    JsonNumber number;
    std::string text;
    bool flag = false;
};

bool scalar(JsonScanner& s, Scalar& out) {
    if (s.peek('"')) {
        out.kind = Scalar::Kind::String;
        return s.string(out.text);
    }
    if (s.peek('t') || s.peek('f')) {
        out.kind = Scalar::Kind::Bool;
        return s.boolean(out.flag);
    }
    if (s.peek('n')) {
        out.kind = Scalar::Kind::Null;
        return s.null();
    }
    out.kind = Scalar::Kind::Number;
    return s.number(out.number);
}

bool positiveInt64(JsonScanner& s, std::int64_t& out, bool zeroAllowed) {
    std::uint64_t u = 0;
    if (!s.unsignedInteger(u) || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        (!zeroAllowed && u == 0))
        return false;
    out = static_cast<std::int64_t>(u);
    return true;
}

bool int64Number(JsonScanner& s, std::int64_t& out) {
    JsonNumber n;
    return s.number(n) && n.asInt64(out);
}

// A string or null, as the DOM reader's optionalString takes them.
bool optionalString(JsonScanner& s, std::optional<std::string>& out) {
    if (s.peek('n'))
        return s.null();
    std::string v;
    if (!s.string(v))
        return false;
    out = std::move(v);
    return true;
}

class DocumentScan {
public:
    explicit DocumentScan(const SafetensorsFile& file) : m_file(file) {}

    bool document(JsonScanner& s, AotCapture& out) {
        std::optional<std::string> format;
        std::uint64_t version = 0;
        unsigned seen = 0;
        const bool ok =
            knownObject(s,
                        {"format", "version", "producer", "reference_graph", "method", "etrecord_sha256",
                         "layout_recorded", "inputs", "reference_outputs", "step", "records"},
                        seen, [&](int k) {
                            switch (k) {
                            case 0: return optionalString(s, format) && format;
                            case 1: return s.unsignedInteger(version);
                            case 2: return producer(s, out.producer);
                            case 3: return optionalString(s, out.reference_graph);
                            case 4: {
                                std::optional<std::string> method;
                                if (!optionalString(s, method))
                                    return false;
                                if (method)
                                    out.method = std::move(*method);
                                return true;
                            }
                            case 5: return optionalString(s, out.etrecord_sha256);
                            case 6:
                                if (s.peek('n'))
                                    return s.null();
                                return s.boolean(out.layout_recorded);
                            case 7: return optionalValues(s, out.inputs);
                            case 8: return optionalValues(s, out.reference_outputs);
                            case 9: {
                                if (s.peek('n'))
                                    return s.null();
                                std::uint64_t step = 0;
                                if (!s.unsignedInteger(step))
                                    return false;
                                out.step = step;
                                return true;
                            }
                            default:
                                return array(s, [&] {
                                    out.records.emplace_back();
                                    return record(s, out.records.back());
                                });
                            }
                        });
        if (!ok || !format || *format != "gapscope.aot_capture" || !(seen & 1u << 1) || !(seen & 1u << 10) ||
            version < 1 || version > static_cast<std::uint64_t>(AotCapture::kVersion))
            return false;
        out.version = static_cast<int>(version);
        return s.atEnd();
    }

private:
    // Null (ignored) or an object of strings.
    static bool producer(JsonScanner& s, std::map<std::string, std::string>& out) {
        if (s.peek('n'))
            return s.null();
        return object(s, [&](const std::string& key) {
            std::string v;
            return s.string(v) && out.emplace(key, std::move(v)).second;
        });
    }

    bool optionalValues(JsonScanner& s, std::optional<std::vector<CaptureValue>>& out) {
        if (s.peek('n'))
            return s.null();
        out.emplace();
        return values(s, *out, 0);
    }

    bool values(JsonScanner& s, std::vector<CaptureValue>& out, int depth) {
        return array(s, [&] {
            out.emplace_back();
            return value(s, out.back(), depth);
        });
    }

    bool value(JsonScanner& s, CaptureValue& v, int depth) {
        if (depth > kMaxListDepth)
            return false;
        std::string kind, name;
        Scalar scalarValue;
        unsigned seen = 0;
        if (!knownObject(s, {"kind", "name", "value", "items"}, seen, [&](int k) {
                switch (k) {
                case 0: return s.string(kind);
                case 1: return s.string(name);
                case 2: return scalar(s, scalarValue);
                default: return values(s, v.items, depth + 1);
                }
            }))
            return false;
        constexpr unsigned kKind = 1, kName = 2, kValue = 4, kItems = 8;
        if (kind == "tensor") {
            v.kind = CaptureValue::Kind::Tensor;
            v.tensor = std::move(name);
            return seen == (kKind | kName) && m_file.find(v.tensor);
        }
        if (kind == "null") {
            v.kind = CaptureValue::Kind::Null;
            return seen == kKind;
        }
        if (kind == "list") {
            v.kind = CaptureValue::Kind::List;
            return seen == (kKind | kItems);
        }
        if (seen != (kKind | kValue))
            return false;
        const bool number = scalarValue.kind == Scalar::Kind::Number;
        if (kind == "int") {
            v.kind = CaptureValue::Kind::Int;
            return number && scalarValue.number.asInt64(v.int_value);
        }
        if (kind == "float") {
            v.kind = CaptureValue::Kind::Float;
            if (number) {
                v.float_value = scalarValue.number.asDouble();
                return true;
            }
            if (scalarValue.kind != Scalar::Kind::String)
                return false;
            const std::string& t = scalarValue.text;
            if (t == "NaN")
                v.float_value = std::numeric_limits<double>::quiet_NaN();
            else if (t == "Infinity")
                v.float_value = std::numeric_limits<double>::infinity();
            else if (t == "-Infinity")
                v.float_value = -std::numeric_limits<double>::infinity();
            else
                return false;
            return true;
        }
        if (kind == "bool") {
            v.kind = CaptureValue::Kind::Bool;
            v.bool_value = scalarValue.flag;
            return scalarValue.kind == Scalar::Kind::Bool;
        }
        return false;
    }

    // A number, or a non-empty list of numbers (integers where T is).
    template <typename T> static bool numberList(JsonScanner& s, std::vector<T>& out) {
        const auto one = [&] {
            JsonNumber n;
            if (!s.number(n))
                return false;
            if constexpr (std::is_integral_v<T>) {
                std::int64_t i = 0;
                if (!n.asInt64(i))
                    return false;
                out.push_back(i);
            } else {
                out.push_back(n.asDouble());
            }
            return true;
        };
        if (!s.peek('['))
            return one();
        return array(s, one) && !out.empty();
    }

    static bool quant(JsonScanner& s, QuantParams& q) {
        std::string scheme;
        std::int64_t axis = 0;
        unsigned seen = 0;
        if (!knownObject(s, {"scheme", "scale", "zero_point", "axis", "dtype", "qmin", "qmax"}, seen,
                         [&](int k) {
                             switch (k) {
                             case 0: return s.string(scheme);
                             case 1: return numberList(s, q.scale);
                             case 2: return numberList(s, q.zero_point);
                             case 3: return int64Number(s, axis);
                             case 4: return s.string(q.dtype);
                             case 5: return int64Number(s, q.qmin);
                             default: return int64Number(s, q.qmax);
                             }
                         }))
            return false;
        constexpr unsigned kScale = 2, kZeroPoint = 4, kAxis = 8, kQmin = 32, kQmax = 64;
        if (scheme != "per_tensor" && scheme != "per_channel")
            return false;
        q.per_channel = scheme == "per_channel";
        if (!(seen & kScale) || !(seen & kZeroPoint) || !(seen & kQmin) || !(seen & kQmax) ||
            q.scale.size() != q.zero_point.size() || (!q.per_channel && q.scale.size() != 1) ||
            (q.per_channel && !(seen & kAxis)) || q.qmin > q.qmax)
            return false;
        if (q.per_channel)
            q.axis = axis;
        return std::all_of(q.scale.begin(), q.scale.end(),
                           [](double v) { return v > 0 && std::isfinite(v); });
    }

    bool record(JsonScanner& s, CaptureRecord& r) {
        unsigned seen = 0;
        bool quantization = false;
        if (!knownObject(s,
                         {"debug_handle", "ops", "stack_traces", "sequence", "outputs", "quantization",
                          "axis_order", "invalid_reason"},
                         seen, [&](int k) {
                             switch (k) {
                             case 0:
                                 return array(s, [&] {
                                     r.debug_handle.emplace_back();
                                     return positiveInt64(s, r.debug_handle.back(), false);
                                 });
                             case 1:
                                 return array(s, [&] {
                                     r.ops.emplace_back();
                                     return s.string(r.ops.back());
                                 });
                             case 2: return stackTraces(s, r.stack_traces);
                             case 3: return s.boolean(r.sequence);
                             case 4: return values(s, r.outputs, 0);
                             case 5:
                                 if (s.peek('n'))
                                     return s.null();
                                 quantization = true;
                                 return array(s, [&] {
                                     auto& q = r.quantization.emplace_back();
                                     if (s.peek('n'))
                                         return s.null();
                                     q.emplace();
                                     return quant(s, *q);
                                 });
                             case 7:
                                 if (s.peek('n'))
                                     return s.null();
                                 r.invalid_reason.emplace();
                                 return s.string(*r.invalid_reason);
                             default:
                                 if (s.peek('n'))
                                     return s.null();
                                 r.axis_order.emplace();
                                 return array(s, [&] {
                                     r.axis_order->emplace_back();
                                     return positiveInt64(s, r.axis_order->back(), true);
                                 });
                             }
                         }))
            return false;
        constexpr unsigned kDebugHandle = 1, kOutputs = 16;
        if (!(seen & kDebugHandle) || r.debug_handle.empty() || !(seen & kOutputs) ||
            (!r.sequence && r.outputs.size() != 1) ||
            (quantization && r.quantization.size() != r.outputs.size()))
            return false;
        // A record without a value holds only nulls (the DOM reader says where not).
        if (r.invalid_reason && std::any_of(r.outputs.begin(), r.outputs.end(), [](const CaptureValue& v) {
                return v.kind != CaptureValue::Kind::Null;
            }))
            return false;
        if (r.axis_order) {
            auto sorted = *r.axis_order;
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t i = 0; i < sorted.size(); ++i)
                if (sorted[i] != static_cast<std::int64_t>(i))
                    return false;
        }
        return true;
    }

    // Null (ignored) or an object of strings and nulls, in file order.
    static bool stackTraces(JsonScanner& s,
                            std::vector<std::pair<std::string, std::optional<std::string>>>& out) {
        if (s.peek('n'))
            return s.null();
        return object(s, [&](const std::string& key) {
            // Duplicates are looked for one by one: past a group's few ops, the
            // DOM reader takes over rather than this scan growing quadratic.
            if (out.size() >= kMaxStackTraces)
                return false;
            for (const auto& [op, trace] : out)
                if (op == key)
                    return false;
            std::optional<std::string> trace;
            if (!optionalString(s, trace))
                return false;
            out.emplace_back(key, std::move(trace));
            return true;
        });
    }

    const SafetensorsFile& m_file;
};

} // namespace

std::optional<AotCapture> scanCaptureDocument(std::string_view text, const SafetensorsFile& file) {
    JsonScanner s(text);
    AotCapture out;
    if (!DocumentScan(file).document(s, out))
        return std::nullopt;
    return out;
}

} // namespace gapscope
