#include "core/common/on_demand_json.h"

#include <catch2/catch.hpp>
#include <string>

using namespace gapscope;
using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;

namespace {

// The readers as they were before the fast path: a number's type first, then
// its value (a malformed number throws).
std::optional<std::int64_t> typeFirstInt64(simdjson::ondemand::value value) {
    if (value.type().value() != json_type::number)
        return std::nullopt;
    if (value.get_number_type().value() != number_type::signed_integer)
        return std::nullopt;
    return value.get_int64().value();
}

std::optional<std::uint64_t> typeFirstUint64(simdjson::ondemand::value value) {
    if (value.type().value() != json_type::number)
        return std::nullopt;
    switch (value.get_number_type().value()) {
    case number_type::unsigned_integer: return value.get_uint64().value();
    case number_type::signed_integer: {
        const std::int64_t i = value.get_int64().value();
        return i < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(i));
    }
    default: return std::nullopt;
    }
}

// What `read` makes of `token` as the first item of a list: the number,
// "none" or "throws"; then whether the list's next item (2) still reads, so a
// fast path that failed left the parser where it stood.
template <typename Read> std::string readFirst(const std::string& token, Read read) {
    OnDemandJson json("[" + token + ",2]");
    std::string out;
    bool next = false;
    try {
        int index = 0;
        for (auto item : json.document().get_array()) {
            if (index++ == 0) {
                const auto n = read(item.value());
                out = n ? std::to_string(*n) : "none";
            } else {
                next = typeFirstInt64(item.value()) == std::optional<std::int64_t>(2);
            }
        }
    } catch (const simdjson::simdjson_error&) {
        return "throws";
    }
    return out + (next ? "" : " (the next item did not read)");
}

} // namespace

// onDemandInt64 and onDemandUint64 try simdjson's get_int64/get_uint64 first
// and fall back to the type-first reading: they must agree with it on every
// token, numbers and faults alike.
TEST_CASE("The integer readers' fast path reads as the type-first reading", "[json]") {
    const char* tokens[] = {"0",
                            "-0",
                            "1",
                            "-1",
                            "42",
                            "1.0",
                            "1e3",
                            "1E3",
                            "-0.0",
                            "-0e0",
                            "1.",
                            "9223372036854775807",
                            "9223372036854775808",
                            "-9223372036854775808",
                            "-9223372036854775809",
                            "18446744073709551615",
                            "18446744073709551616",
                            "123456789012345678901234",
                            "00",
                            "01",
                            "-01",
                            "-",
                            "--1",
                            "1x",
                            "0x10",
                            "\"5\"",
                            "true",
                            "null",
                            "[1]",
                            "{}"};
    for (const char* token : tokens) {
        INFO(token);
        CHECK(readFirst(token, onDemandInt64) == readFirst(token, typeFirstInt64));
        CHECK(readFirst(token, onDemandUint64) == readFirst(token, typeFirstUint64));
    }
    // A few pinned, so that the reference itself is checked too.
    CHECK(readFirst("-0", onDemandUint64) == "0");
    CHECK(readFirst("9223372036854775808", onDemandInt64) == "none");
    CHECK(readFirst("9223372036854775808", onDemandUint64) == "9223372036854775808");
    CHECK(readFirst("-9223372036854775808", onDemandInt64) == "-9223372036854775808");
    CHECK(readFirst("1.0", onDemandInt64) == "none");
    CHECK(readFirst("01", onDemandInt64) == "throws");
}
