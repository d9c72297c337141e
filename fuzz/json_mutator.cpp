#include "fuzz/json_mutator.h"

#include "core/common/json_depth.h"

#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope::fuzz {

namespace {

using nlohmann::json;
using Rng = std::minstd_rand;

constexpr std::size_t kMaxMutatedDepth = 64;

std::size_t pick(Rng& rng, std::size_t n) {
    return n == 0 ? 0 : static_cast<std::size_t>(rng() % n);
}

const std::vector<json>& boundaryNumbers() {
    static const std::vector<json> values{json(0),
                                          json(1),
                                          json(-1),
                                          json(2),
                                          json(127),
                                          json(128),
                                          json(-128),
                                          json(-129),
                                          json(255),
                                          json(256),
                                          json(32767),
                                          json(-32768),
                                          json(65535),
                                          json(65536),
                                          json(std::numeric_limits<std::int32_t>::max()),
                                          json(std::int64_t(1) << 31),
                                          json(std::int64_t(1) << 32),
                                          json((std::int64_t(1) << 32) + 1),
                                          json(std::numeric_limits<std::int64_t>::max()),
                                          json(std::numeric_limits<std::int64_t>::min()),
                                          json(std::uint64_t(1) << 63),
                                          json(std::numeric_limits<std::uint64_t>::max()),
                                          json(0.5),
                                          json(-0.0),
                                          json(1.0),
                                          json(1e-40),
                                          json(1e-45),
                                          json(1.17549435e-38),
                                          json(3.4028235e38),
                                          json(3.5e38),
                                          json(1e308),
                                          json(-1e308),
                                          json(1e10),
                                          json(0.1)};
    return values;
}

const std::vector<json>& otherValues() {
    static const std::vector<json> values{json(nullptr),
                                          json(true),
                                          json(false),
                                          json(""),
                                          json("0231"),
                                          json::array(),
                                          json::object(),
                                          json::array({0, 1, 2, 3}),
                                          json::array({0, 2, 3, 1}),
                                          json::array({json::array({0})}),
                                          json("int8"),
                                          json("uint8"),
                                          json("int16"),
                                          json("uint16"),
                                          json("int32"),
                                          json("int4"),
                                          json("float32"),
                                          json("per_tensor"),
                                          json("per_channel"),
                                          json("F32"),
                                          json("I32"),
                                          json("U8"),
                                          json("BOOL"),
                                          json("BF16"),
                                          json("tensor"),
                                          json("scalar"),
                                          json("none"),
                                          json("forward"),
                                          json("snr"),
                                          json("\xff\xfe"),
                                          json(std::string(1, '\0'))};
    return values;
}

// Every value of the tree, and the keys of its objects.
void collect(json& v, std::vector<json*>& values, std::vector<std::string>& keys) {
    values.push_back(&v);
    if (v.is_object()) {
        for (auto it = v.begin(); it != v.end(); ++it) {
            keys.push_back(it.key());
            collect(it.value(), values, keys);
        }
    } else if (v.is_array()) {
        for (auto& e : v)
            collect(e, values, keys);
    }
}

void step(json& v, Rng& rng) {
    if (v.is_number_unsigned() || v.is_number_integer()) {
        // Wrapping arithmetic on the bits: 2^63 - 1 + 1 and -2^63 - 1 are the boundaries wanted.
        const auto u = v.is_number_unsigned() ? v.get<std::uint64_t>()
                                              : static_cast<std::uint64_t>(v.get<std::int64_t>());
        const bool asSigned = v.is_number_integer();
        const auto put = [&](std::uint64_t bits) {
            if (asSigned)
                v = static_cast<std::int64_t>(bits);
            else
                v = bits;
        };
        switch (pick(rng, 4)) {
        case 0: put(u + 1); break;
        case 1: put(u - 1); break;
        case 2: put(0 - u); break;
        default:
            v = asSigned ? static_cast<double>(static_cast<std::int64_t>(u)) : static_cast<double>(u);
            break;
        }
    } else if (v.is_number_float()) {
        const double d = v.get<double>();
        v = pick(rng, 2) ? -d : d * 2;
    } else if (v.is_boolean()) {
        v = !v.get<bool>();
    } else {
        v = boundaryNumbers()[pick(rng, boundaryNumbers().size())];
    }
}

void removeOrAdd(json& v, Rng& rng, const std::vector<std::string>& keys) {
    const bool remove = pick(rng, 2) == 0;
    if (v.is_object() && !v.empty()) {
        auto it = v.begin();
        std::advance(it, static_cast<long>(pick(rng, v.size())));
        if (remove)
            v.erase(it);
        else if (!keys.empty())
            v[keys[pick(rng, keys.size())]] = json(*it); // a known key, possibly where it does not belong
    } else if (v.is_array() && !v.empty()) {
        const auto at = pick(rng, v.size());
        if (remove)
            v.erase(at);
        else
            v.insert(v.begin() + static_cast<long>(pick(rng, v.size() + 1)), json(v[at]));
    } else if (v.is_object() && !keys.empty()) {
        v[keys[pick(rng, keys.size())]] = otherValues()[pick(rng, otherValues().size())];
    } else if (v.is_array()) {
        v.push_back(boundaryNumbers()[pick(rng, boundaryNumbers().size())]);
    } else {
        v = nullptr;
    }
}

void renameKey(json& v, Rng& rng, const std::vector<std::string>& keys) {
    if (!v.is_object() || v.empty() || keys.empty())
        return step(v, rng);
    auto it = v.begin();
    std::advance(it, static_cast<long>(pick(rng, v.size())));
    json moved = std::move(it.value());
    v.erase(it);
    v[keys[pick(rng, keys.size())]] = std::move(moved);
}

void mutateString(json& v, Rng& rng) {
    if (!v.is_string())
        return step(v, rng);
    std::string s = v.get<std::string>();
    const std::size_t room = s.size() * 2 + 16;
    s.resize(room);
    const auto n =
        LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(s.data()), v.get<std::string>().size(), room);
    s.resize(n);
    v = s; // dumped with invalid UTF-8 replaced: the byte faults come from the plain mutations
}

void mutateOne(json& document, Rng& rng) {
    std::vector<json*> values;
    std::vector<std::string> keys;
    collect(document, values, keys);
    json& v = *values[pick(rng, values.size())];
    switch (pick(rng, 7)) {
    case 0: v = boundaryNumbers()[pick(rng, boundaryNumbers().size())]; break;
    case 1: v = otherValues()[pick(rng, otherValues().size())]; break;
    case 2: step(v, rng); break;
    case 3: removeOrAdd(v, rng, keys); break;
    case 4: {
        json copy = *values[pick(rng, values.size())]; // copied first: it may lie inside v
        v = std::move(copy);
        break;
    }
    case 5: renameKey(v, rng, keys); break;
    default: mutateString(v, rng); break;
    }
}

} // namespace

std::size_t mutateJson(std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed) {
    Rng rng(seed);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (pick(rng, 5) == 0 || size == 0 || jsonTooDeep(text, kMaxMutatedDepth))
        return LLVMFuzzerMutate(data, size, maxSize);
    json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded())
        return LLVMFuzzerMutate(data, size, maxSize);
    mutateOne(document, rng);
    const std::string out = document.dump(-1, ' ', false, json::error_handler_t::replace);
    if (out.size() > maxSize)
        return LLVMFuzzerMutate(data, size, maxSize);
    std::memcpy(data, out.data(), out.size());
    return out.size();
}

} // namespace gapscope::fuzz
