#include "core/common/on_demand_json.h"

#include <catch2/catch.hpp>
#include <string>

using namespace gapscope;

namespace {

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
// token, numbers and faults alike (the pinned values below check the
// type-first reading itself).
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
