// Conversion of every ScalarType to float64, including the types ExecuTorch's
// stock ETDumpGen cannot write (other producers can).

#include "core/common/sha256.h"
#include "core/etdump/element_decode.h"
#include "core/etdump/scalar_type.h"
#include "core/etdump/tensor_stats.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace gapscope;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

template <typename T> std::vector<std::uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<std::uint8_t> out(values.size() * sizeof(T));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

std::vector<double> decodeAll(ScalarType t, const std::vector<std::uint8_t>& b, std::size_t n) {
    std::vector<double> out(n);
    decodeToDouble(t, {b.data(), b.size()}, 0, n, out.data());
    return out;
}
} // namespace

TEST_CASE("every ScalarType of the spec has a name and an element size", "[dtype]") {
    struct Row {
        int raw;
        const char* name;
        unsigned bits;
    };
    const Row rows[] = {{0, "uint8", 8},
                        {1, "int8", 8},
                        {2, "int16", 16},
                        {3, "int32", 32},
                        {4, "int64", 64},
                        {5, "float16", 16},
                        {6, "float32", 32},
                        {7, "float64", 64},
                        {11, "bool", 8},
                        {12, "qint8", 8},
                        {13, "quint8", 8},
                        {14, "qint32", 32},
                        {15, "bfloat16", 16},
                        {16, "quint4x2", 4},
                        {17, "quint2x4", 2},
                        {22, "bits16", 16},
                        {23, "float8_e5m2", 8},
                        {24, "float8_e4m3fn", 8},
                        {25, "float8_e5m2fnuz", 8},
                        {26, "float8_e4m3fnuz", 8},
                        {27, "uint16", 16},
                        {28, "uint32", 32},
                        {29, "uint64", 64}};
    for (const auto& r : rows) {
        INFO("scalar type " << r.raw);
        const auto info = scalarTypeInfo(static_cast<std::int8_t>(r.raw));
        REQUIRE(info);
        CHECK(std::string(info->name) == r.name);
        CHECK(info->bitsPerElement == r.bits);
    }
    for (int reserved : {8, 9, 10, 18, 19, 20, 21, 30, 127, -1, -128}) {
        CHECK_FALSE(scalarTypeInfo(static_cast<std::int8_t>(reserved)));
        CHECK(scalarTypeName(static_cast<std::int8_t>(reserved)) ==
              "unknown(" + std::to_string(reserved) + ")");
    }
}

TEST_CASE("storage size rounds packed types up and refuses overflow", "[dtype]") {
    CHECK(*storageBytes(6, 10) == 40);
    CHECK(*storageBytes(16, 5) == 3); // quint4x2: two per byte
    CHECK(*storageBytes(17, 5) == 2); // quint2x4: four per byte
    CHECK(*storageBytes(4, 0) == 0);
    CHECK_FALSE(storageBytes(4, std::uint64_t(1) << 61)); // 2^61 x 8 bytes overflows
    CHECK_FALSE(storageBytes(99, 1));
}

TEST_CASE("integer and IEEE types convert exactly", "[dtype]") {
    CHECK(decodeAll(ScalarType::Char, bytesOf<std::int8_t>({-128, 127}), 2) ==
          std::vector<double>{-128, 127});
    CHECK(decodeAll(ScalarType::QInt8, bytesOf<std::int8_t>({-5}), 1) == std::vector<double>{-5});
    CHECK(decodeAll(ScalarType::QUInt8, bytesOf<std::uint8_t>({250}), 1) == std::vector<double>{250});
    CHECK(decodeAll(ScalarType::QInt32, bytesOf<std::int32_t>({-70000}), 1) == std::vector<double>{-70000});
    CHECK(decodeAll(ScalarType::UInt32, bytesOf<std::uint32_t>({4294967295u}), 1) ==
          std::vector<double>{4294967295.0});
    CHECK(decodeAll(ScalarType::UInt64, bytesOf<std::uint64_t>({18446744073709551615ull}), 1) ==
          std::vector<double>{18446744073709551616.0});
    CHECK(decodeAll(ScalarType::Bool, bytesOf<std::uint8_t>({0, 1, 2}), 3) == std::vector<double>{0, 1, 1});
    CHECK(decodeAll(ScalarType::Double, bytesOf<double>({-0.1}), 1) == std::vector<double>{-0.1});
}

TEST_CASE("float16 and bfloat16", "[dtype]") {
    CHECK(halfToDouble(0x3C00) == 1.0);
    CHECK(halfToDouble(0xC000) == -2.0);
    CHECK(halfToDouble(0x7BFF) == 65504.0);
    CHECK(halfToDouble(0x0001) == std::ldexp(1.0, -24)); // smallest subnormal
    CHECK(halfToDouble(0x0400) == std::ldexp(1.0, -14)); // smallest normal
    CHECK(halfToDouble(0x3555) == 0.333251953125);
    CHECK(halfToDouble(0x7C00) == kInf);
    CHECK(halfToDouble(0xFC00) == -kInf);
    CHECK(std::isnan(halfToDouble(0x7E00)));
    CHECK(std::signbit(halfToDouble(0x8000)));

    CHECK(bfloat16ToDouble(0x3F80) == 1.0);
    CHECK(bfloat16ToDouble(0x4049) == 3.140625);
    CHECK(bfloat16ToDouble(0xC2F7) == -123.5);
    CHECK(bfloat16ToDouble(0x7F80) == kInf);
    CHECK(std::isnan(bfloat16ToDouble(0x7FC0)));
    CHECK(decodeAll(ScalarType::Half, bytesOf<std::uint16_t>({0x3C00, 0xC000}), 2) ==
          std::vector<double>{1, -2});
    CHECK(decodeAll(ScalarType::BFloat16, bytesOf<std::uint16_t>({0x4049}), 1) ==
          std::vector<double>{3.140625});
}

TEST_CASE("the four float8 formats", "[dtype]") {
    // e5m2: IEEE-like, bias 15, has infinities.
    CHECK(float8ToDouble(ScalarType::Float8E5M2, 0x3C) == 1.0);
    CHECK(float8ToDouble(ScalarType::Float8E5M2, 0x7B) == 57344.0);
    CHECK(float8ToDouble(ScalarType::Float8E5M2, 0x01) == std::ldexp(1.0, -16));
    CHECK(float8ToDouble(ScalarType::Float8E5M2, 0x7C) == kInf);
    CHECK(float8ToDouble(ScalarType::Float8E5M2, 0xFC) == -kInf);
    CHECK(std::isnan(float8ToDouble(ScalarType::Float8E5M2, 0x7D)));
    // e4m3fn: bias 7, no infinity, only S.1111.111 is NaN.
    CHECK(float8ToDouble(ScalarType::Float8E4M3FN, 0x38) == 1.0);
    CHECK(float8ToDouble(ScalarType::Float8E4M3FN, 0x7E) == 448.0);
    CHECK(float8ToDouble(ScalarType::Float8E4M3FN, 0x78) == 256.0); // all-ones exponent is finite
    CHECK(float8ToDouble(ScalarType::Float8E4M3FN, 0x01) == std::ldexp(1.0, -9));
    CHECK(std::isnan(float8ToDouble(ScalarType::Float8E4M3FN, 0x7F)));
    CHECK(std::isnan(float8ToDouble(ScalarType::Float8E4M3FN, 0xFF)));
    CHECK(float8ToDouble(ScalarType::Float8E4M3FN, 0xC0) == -2.0);
    // e5m2fnuz: bias 16, 0x80 is the only NaN, no -0, no infinity.
    CHECK(float8ToDouble(ScalarType::Float8E5M2FNUZ, 0x40) == 1.0);
    CHECK(float8ToDouble(ScalarType::Float8E5M2FNUZ, 0x7F) == 57344.0);
    CHECK(float8ToDouble(ScalarType::Float8E5M2FNUZ, 0x01) == std::ldexp(1.0, -17));
    CHECK(std::isnan(float8ToDouble(ScalarType::Float8E5M2FNUZ, 0x80)));
    // e4m3fnuz: bias 8, 0x80 is the only NaN.
    CHECK(float8ToDouble(ScalarType::Float8E4M3FNUZ, 0x40) == 1.0);
    CHECK(float8ToDouble(ScalarType::Float8E4M3FNUZ, 0x7F) == 240.0);
    CHECK(float8ToDouble(ScalarType::Float8E4M3FNUZ, 0x01) == std::ldexp(1.0, -10));
    CHECK(std::isnan(float8ToDouble(ScalarType::Float8E4M3FNUZ, 0x80)));
    CHECK(float8ToDouble(ScalarType::Float8E4M3FNUZ, 0xC0) == -1.0);
}

TEST_CASE("packed 4-bit and 2-bit types, lowest bits first", "[dtype]") {
    CHECK(decodeAll(ScalarType::QUInt4x2, {0x21, 0xF0}, 3) == std::vector<double>{1, 2, 0});
    CHECK(decodeAll(ScalarType::QUInt2x4, {0xE4, 0x03}, 5) == std::vector<double>{0, 1, 2, 3, 3});
    // Decoding from an odd start index reads the high nibble.
    const std::vector<std::uint8_t> b{0x21, 0x43};
    CHECK(decodeElement(ScalarType::QUInt4x2, {b.data(), b.size()}, 3) == 4.0);
}

TEST_CASE("tensor statistics count NaN and Inf and skip NaN for min/max", "[dtype][stats]") {
    const std::vector<float> values{1.0f, std::numeric_limits<float>::quiet_NaN(), -3.0f,
                                    std::numeric_limits<float>::infinity()};
    const auto b = bytesOf(values);
    const auto s = computeTensorStats(ScalarType::Float, {b.data(), b.size()}, values.size());
    CHECK(s.nan == 1);
    CHECK(s.inf == 1);
    CHECK(*s.min == -3.0);
    CHECK(*s.max == kInf);
    CHECK(std::isnan(s.sum));

    // Blocks of 4096: a tensor longer than one block sums every element once.
    std::vector<std::int16_t> ramp(10000);
    for (std::size_t i = 0; i < ramp.size(); ++i)
        ramp[i] = static_cast<std::int16_t>(i % 7);
    const auto rb = bytesOf(ramp);
    const auto rs = computeTensorStats(ScalarType::Short, {rb.data(), rb.size()}, ramp.size());
    double want = 0;
    for (auto v : ramp)
        want += v;
    CHECK(rs.sum == want);
    CHECK(rs.mean == want / 10000.0);
    CHECK(*rs.max == 6.0);
}

TEST_CASE("SHA-256 of known inputs", "[hash]") {
    const std::string abc = "abc";
    CHECK(gapscope::sha256Hex({reinterpret_cast<const std::uint8_t*>(abc.data()), abc.size()}) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(gapscope::sha256Hex({nullptr, 0}) ==
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // Hashed in 16 MiB chunks, across boundaries: the digest coreutils gives for
    // the same 40 MiB of 'a' (head -c 41943040 /dev/zero | tr '\0' a | sha256sum).
    const std::vector<std::uint8_t> many(40u << 20, 'a');
    std::atomic<bool> running{false};
    CHECK(gapscope::sha256Hex({many.data(), many.size()}, &running) ==
          "a1fde4d201c91a880700f22adb3de5cf17d3e73db0c002fd7cbc721b17571f66");
    // Cancelled: nothing, not a digest of a prefix.
    std::atomic<bool> cancelled{true};
    CHECK(gapscope::sha256Hex({many.data(), many.size()}, &cancelled).empty());
}
