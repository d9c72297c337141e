// Bad input: every failure is a specific error or a located warning, never a
// crash, a read past a buffer (the asan preset runs this file too) or a silent
// wrong number.

#include "core/etdump/etdump_reader.h"
#include "core/etdump/etdump_writer.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>

using namespace gapscope;
using namespace gapscope::test;

namespace {

const char* const kFixtures[] = {"etdump/a_fp32_op_chain.etdp", "etdump/b_qnn_delegate_intermediates.etdp",
                                 "etdump/c_mixed_dtypes.etdp", "executorch-samples/etdump.etdp"};

EtDump oneTensorDump(const Tensor& t) {
    Value v;
    v.val = static_cast<std::int8_t>(ValueType::Tensor);
    v.tensors.push_back(t);
    DebugEvent d;
    d.instruction_id = 0;
    d.chain_index = 0;
    d.debug_entry = v;
    RunData run;
    run.name = "Execute";
    run.events.push_back(d);
    EtDump dump;
    dump.runs.push_back(run);
    return dump;
}

Tensor tensorOf(std::int8_t dtype, std::vector<std::int64_t> sizes, std::int64_t offset) {
    Tensor t;
    t.scalar_type = dtype;
    t.strides.assign(sizes.size(), 1);
    t.sizes = std::move(sizes);
    t.offset = offset;
    return t;
}

const Tensor& onlyTensor(const EtDump& dump) {
    return std::get<DebugEvent>(dump.runs.at(0).events.at(0)).debug_entry->tensors.at(0);
}

const Warning* findWarning(const EtDump& dump, WarningCode code) {
    for (const auto& w : dump.warnings)
        if (w.code == code)
            return &w;
    return nullptr;
}

} // namespace

TEST_CASE("an empty file is a specific error", "[etdump][bogus]") {
    auto r = parseBytes({});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::Empty);
    CHECK_THAT(r.error().describe(), Catch::StartsWith("test.etdp: file is empty"));
}

TEST_CASE("a missing file and a directory are errors naming the path", "[etdump][bogus]") {
    auto missing = loadEtdump("/nonexistent/run.etdp", std::nullopt);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ErrorCode::Io);
    CHECK_THAT(missing.error().describe(), Catch::Contains("/nonexistent/run.etdp"));

    auto dir = loadEtdump(GAPSCOPE_FIXTURES_DIR, std::nullopt);
    REQUIRE_FALSE(dir);
    CHECK_THAT(dir.error().describe(), Catch::Contains("is a directory"));

    auto noBuffer =
        loadEtdump(fixturePath("etdump/a_fp32_op_chain.etdp"), std::string("/nonexistent/x.debug.bin"));
    REQUIRE_FALSE(noBuffer);
    CHECK_THAT(noBuffer.error().describe(), Catch::Contains("/nonexistent/x.debug.bin"));
}

TEST_CASE("random bytes are rejected, never crash", "[etdump][bogus]") {
    std::mt19937 rng(42);
    for (int i = 0; i < 500; ++i) {
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(rng() % 600));
        for (auto& b : bytes)
            b = static_cast<std::uint8_t>(rng());
        auto r = parseBytes(bytes);
        CHECK_FALSE(r); // without ED00 at 4 or 8 nothing random is an ETDump
    }
}

TEST_CASE("random bytes behind a valid header fail verification with a location", "[etdump][bogus]") {
    std::mt19937 rng(7);
    for (int i = 0; i < 500; ++i) {
        std::vector<std::uint8_t> bytes(12 + rng() % 400);
        for (auto& b : bytes)
            b = static_cast<std::uint8_t>(rng());
        const auto rest = static_cast<std::uint32_t>(bytes.size() - 4);
        std::memcpy(bytes.data(), &rest, 4);
        std::memcpy(bytes.data() + 8, "ED00", 4);
        auto r = parseBytes(bytes);
        if (!r) {
            CHECK(r.error().code == ErrorCode::Malformed);
            CHECK_THAT(r.error().describe(), Catch::StartsWith("test.etdp: corrupt ETDump"));
        }
    }
}

TEST_CASE("every truncation of every fixture is an error", "[etdump][bogus]") {
    for (const char* name : kFixtures) {
        const auto bytes = readBytes(fixturePath(name));
        for (std::size_t len = 0; len < bytes.size(); ++len) {
            INFO(name << " truncated to " << len << " bytes");
            std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
            auto r = parseBytes(cut);
            REQUIRE_FALSE(r);
            if (len == 0)
                CHECK(r.error().code == ErrorCode::Empty);
            else
                CHECK(r.error().code == ErrorCode::Truncated);
        }
    }
}

TEST_CASE("single-byte corruptions of the fixtures never crash", "[etdump][bogus]") {
    std::mt19937 rng(1234);
    for (const char* name : kFixtures) {
        const auto bytes = readBytes(fixturePath(name));
        for (std::size_t pos = 12; pos < bytes.size(); ++pos) {
            auto mutated = bytes;
            mutated[pos] = static_cast<std::uint8_t>(mutated[pos] ^ (1u << (rng() % 8)));
            auto r = parseBytes(mutated);
            if (!r) {
                CHECK(r.error().code == ErrorCode::Malformed);
                CHECK(r.error().where.file == "test.etdp");
            }
        }
    }
}

TEST_CASE("multi-byte corruptions with a debug buffer never crash", "[etdump][bogus]") {
    std::mt19937 rng(99);
    const auto buffer = readBytes(fixturePath("etdump/b_qnn_delegate_intermediates.debug.bin"));
    for (const char* name : kFixtures) {
        const auto bytes = readBytes(fixturePath(name));
        for (int i = 0; i < 400; ++i) {
            auto mutated = bytes;
            const int edits = 1 + static_cast<int>(rng() % 8);
            for (int k = 0; k < edits; ++k)
                mutated[12 + rng() % (mutated.size() - 12)] = static_cast<std::uint8_t>(rng());
            auto r = parseBytes(mutated, &buffer);
            if (r) {
                // Whatever was read, every Present tensor's bytes lie inside the buffer.
                for (const auto& run : r.value().runs)
                    for (const auto& e : run.events)
                        if (const auto* d = std::get_if<DebugEvent>(&e); d && d->debug_entry)
                            for (const auto& t : d->debug_entry->tensors)
                                if (t.data == TensorData::Present)
                                    CHECK(static_cast<std::uint64_t>(t.offset) + *t.nbytes <= buffer.size());
            }
        }
    }
}

TEST_CASE("a wrong identifier is reported with the bytes found", "[etdump][bogus]") {
    auto bytes = readBytes(fixturePath("etdump/a_fp32_op_chain.etdp"));
    std::memcpy(bytes.data() + 8, "ED01", 4);
    auto r = parseBytes(bytes);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::BadMagic);
    CHECK_THAT(r.error().describe(), Catch::Contains("ED00") && Catch::Contains("0x45443031"));

    auto record = loadEtdump(fixturePath("executorch-samples/etrecord.bin"), std::nullopt);
    REQUIRE_FALSE(record);
    CHECK(record.error().code == ErrorCode::BadMagic);
}

TEST_CASE("a size prefix larger than the file is a truncation and a smaller one leaves trailing bytes",
          "[etdump][bogus]") {
    auto bytes = readBytes(fixturePath("etdump/a_fp32_op_chain.etdp"));
    auto longer = bytes;
    const std::uint32_t tooBig = static_cast<std::uint32_t>(bytes.size());
    std::memcpy(longer.data(), &tooBig, 4);
    auto r = parseBytes(longer);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::Truncated);
    CHECK_THAT(r.error().describe(),
               Catch::Contains("size prefix declares 1400 bytes") && Catch::Contains("only 1396"));

    auto padded = bytes;
    padded.resize(bytes.size() + 16, 0);
    auto ok = parseBytes(padded);
    REQUIRE(ok);
    const auto* w = findWarning(ok.value(), WarningCode::TrailingBytes);
    REQUIRE(w);
    CHECK(w->where.byteOffset == 1400);
}

TEST_CASE("a dump without the size prefix is detected and read", "[etdump][bogus]") {
    const auto fixture = loadFixture("a_fp32_op_chain");
    auto bare = writeEtdump(fixture, false);
    const auto buffer = readBytes(fixturePath("etdump/a_fp32_op_chain.debug.bin"));
    auto r = parseBytes(bare, &buffer);
    REQUIRE(r);
    CHECK_FALSE(r.value().size_prefixed);
    REQUIRE(r.value().runs.size() == 1);
    CHECK(r.value().runs[0].events.size() == 14);
    CHECK(onlyTensor(r.value()).data == TensorData::Present);
}

TEST_CASE("tensor bytes past the end of the debug buffer are 'missing', the rest stays usable",
          "[etdump][bogus]") {
    const auto etdump = readBytes(fixturePath("etdump/b_qnn_delegate_intermediates.etdp"));
    auto buffer = readBytes(fixturePath("etdump/b_qnn_delegate_intermediates.debug.bin"));
    buffer.resize(1000); // keeps tensors at offsets 0, 256, 512, 640, 896; cuts the rest
    auto r = parseBytes(etdump, &buffer);
    REQUIRE(r);
    const auto& events = r.value().runs[0].events;
    CHECK(std::get<DebugEvent>(events[0]).debug_entry->tensors[0].data == TensorData::Present);
    CHECK(std::get<DebugEvent>(events[4]).debug_entry->tensors[0].data == TensorData::Present);
    const auto& cut = std::get<DebugEvent>(events[5]).debug_entry->tensors[0];
    CHECK(cut.data == TensorData::Missing);
    CHECK_THAT(cut.problem, Catch::Contains("[960, 1216)") && Catch::Contains("1000 bytes"));
    CHECK(r.value().tensorBytes(cut).empty());
    const auto* w = findWarning(r.value(), WarningCode::TensorDataMissing);
    REQUIRE(w);
    CHECK(w->where.run == 0);
    CHECK(w->where.event == 5);
    CHECK(w->where.field == "debug_event.debug_entry.tensor.offset");
}

TEST_CASE("a warning names the field of the tensor it is about, in a tensor list too", "[etdump][bogus]") {
    // Paths are rendered only for a warning (FieldPath): each part in place.
    const std::vector<std::uint8_t> buffer(64, 0);
    auto dump = oneTensorDump(tensorOf(6, {2}, 0));
    auto& value = *std::get<DebugEvent>(dump.runs[0].events[0]).debug_entry;
    value.val = static_cast<std::int8_t>(ValueType::TensorList);
    value.tensors = {tensorOf(6, {2}, 0), tensorOf(6, {4, -1}, 0), tensorOf(99, {1}, 0),
                     tensorOf(6, {1}, -5)};
    value.tensors[0].strides = {1, 1, 1};
    auto r = parseBytes(writeEtdump(dump), &buffer);
    REQUIRE(r);
    std::vector<std::string> fields;
    for (const auto& w : r.value().warnings)
        fields.push_back(w.where.field);
    CHECK(fields == std::vector<std::string>{"debug_event.debug_entry.tensor_list.tensors[0].strides",
                                             "debug_event.debug_entry.tensor_list.tensors[1].sizes[1]",
                                             "debug_event.debug_entry.tensor_list.tensors[2].scalar_type",
                                             "debug_event.debug_entry.tensor_list.tensors[3].offset"});
    auto overflow = parseBytes(writeEtdump(oneTensorDump(tensorOf(0, {1LL << 40, 1LL << 40}, 0))), &buffer);
    REQUIRE(overflow);
    REQUIRE(findWarning(overflow.value(), WarningCode::InvalidTensorShape));
    CHECK(findWarning(overflow.value(), WarningCode::InvalidTensorShape)->where.field ==
          "debug_event.debug_entry.tensor.sizes");
}

TEST_CASE("negative sizes, huge sizes and byte-count overflow are flagged per tensor", "[etdump][bogus]") {
    const std::vector<std::uint8_t> buffer(64, 0);
    SECTION("negative size") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(6, {2, -3}, 0))), &buffer);
        REQUIRE(r);
        const auto& t = onlyTensor(r.value());
        CHECK(t.data == TensorData::Invalid);
        CHECK_FALSE(t.numel);
        CHECK_THAT(t.problem, Catch::Contains("negative size -3 in dimension 1"));
        const auto* w = findWarning(r.value(), WarningCode::InvalidTensorShape);
        REQUIRE(w);
        CHECK(w->where.field == "debug_event.debug_entry.tensor.sizes[1]");
        CHECK(w->where.byteOffset > 0);
    }
    SECTION("element count overflows 64 bits") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(0, {1LL << 40, 1LL << 40}, 0))), &buffer);
        REQUIRE(r);
        CHECK(onlyTensor(r.value()).data == TensorData::Invalid);
        CHECK_THAT(onlyTensor(r.value()).problem, Catch::Contains("overflows 64 bits"));
    }
    SECTION("element count times element size overflows") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(4, {1LL << 61}, 0))), &buffer);
        REQUIRE(r);
        const auto& t = onlyTensor(r.value());
        CHECK(t.data == TensorData::Invalid);
        CHECK(*t.numel == (1ULL << 61));
        CHECK_FALSE(t.nbytes);
    }
    SECTION("huge but representable size is simply missing") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(6, {1LL << 40}, 0))), &buffer);
        REQUIRE(r);
        CHECK(onlyTensor(r.value()).data == TensorData::Missing);
    }
    SECTION("offset + nbytes overflows") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(6, {(1LL << 61) + 1}, INT64_MAX))), &buffer);
        REQUIRE(r);
        CHECK(onlyTensor(r.value()).data == TensorData::Missing);
        CHECK_THAT(onlyTensor(r.value()).problem, Catch::Contains("overflow"));
    }
    SECTION("negative offset other than -1") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(6, {4}, -64))), &buffer);
        REQUIRE(r);
        CHECK(onlyTensor(r.value()).data == TensorData::Invalid);
    }
    SECTION("offset -1 and zero elements are empty") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(6, {0, 3}, 128))), &buffer);
        REQUIRE(r);
        CHECK(onlyTensor(r.value()).data == TensorData::Empty);
        CHECK(*onlyTensor(r.value()).nbytes == 0);
    }
    SECTION("unknown scalar type") {
        auto r = parseBytes(writeEtdump(oneTensorDump(tensorOf(99, {4}, 0))), &buffer);
        REQUIRE(r);
        CHECK(onlyTensor(r.value()).data == TensorData::Invalid);
        REQUIRE(findWarning(r.value(), WarningCode::UnknownScalarType));
        CHECK(onlyTensor(r.value()).scalar_type == 99);
    }
    SECTION("strides of another rank are a warning, not a failure") {
        auto t = tensorOf(6, {2, 2}, 0);
        t.strides = {1};
        auto r = parseBytes(writeEtdump(oneTensorDump(t)), &buffer);
        REQUIRE(r);
        CHECK(onlyTensor(r.value()).data == TensorData::Present);
        CHECK(findWarning(r.value(), WarningCode::StridesRankMismatch));
    }
}

TEST_CASE("structural oddities are located warnings", "[etdump][bogus]") {
    EtDump dump;
    RunData run;
    run.allocators = {"planned"};
    run.events.push_back(EmptyEvent{});
    run.events.push_back(AllocationEvent{3, 16});
    DebugEvent noPayload;
    noPayload.debug_entry = Value{};
    noPayload.debug_entry->val = static_cast<std::int8_t>(ValueType::Tensor);
    noPayload.debug_entry->known = false;
    run.events.push_back(noPayload);
    DebugEvent unknownKind;
    unknownKind.debug_entry = Value{};
    unknownKind.debug_entry->val = 42;
    run.events.push_back(unknownKind);
    dump.runs.push_back(run);
    dump.version = 7;

    auto r = parseBytes(writeEtdump(dump));
    REQUIRE(r);
    const auto& got = r.value();
    CHECK(std::holds_alternative<EmptyEvent>(got.runs[0].events[0]));
    const auto* empty = findWarning(got, WarningCode::EventWithoutMember);
    REQUIRE(empty);
    CHECK(empty->where.event == 0);
    const auto* alloc = findWarning(got, WarningCode::AllocatorIdOutOfRange);
    REQUIRE(alloc);
    CHECK(alloc->where.event == 1);
    CHECK_THAT(alloc->message, Catch::Contains("1..1"));
    const auto* payload = findWarning(got, WarningCode::ValuePayloadMissing);
    REQUIRE(payload);
    CHECK(payload->where.event == 2);
    CHECK_FALSE(std::get<DebugEvent>(got.runs[0].events[2]).debug_entry->known);
    const auto* kind = findWarning(got, WarningCode::UnknownValueType);
    REQUIRE(kind);
    CHECK(kind->where.event == 3);
    CHECK(findWarning(got, WarningCode::UnsupportedVersion));
}

TEST_CASE("an event table pointing outside the buffer names its run and event", "[etdump][bogus]") {
    EtDump dump;
    for (int r = 0; r < 2; ++r) {
        RunData run;
        for (int e = 0; e < 3; ++e) {
            ProfileEvent p;
            p.name = "OPERATOR_CALL";
            p.instruction_id = e;
            run.events.push_back(p);
        }
        dump.runs.push_back(run);
    }
    auto bytes = writeEtdump(dump);
    // Find the name string of the last event ("OPERATOR_CALL" stored once per event)
    // and corrupt its length so it runs past the end.
    std::size_t last = 0;
    for (std::size_t i = 0; i + 13 <= bytes.size(); ++i)
        if (std::memcmp(bytes.data() + i, "OPERATOR_CALL", 13) == 0)
            last = i;
    REQUIRE(last >= 4);
    const std::uint32_t hugeLength = 0x7fff0000;
    std::memcpy(bytes.data() + last - 4, &hugeLength, 4);
    auto r = parseBytes(bytes);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::Malformed);
    CHECK(r.error().where.run >= 0);
    CHECK(r.error().where.event >= 0);
    CHECK_THAT(r.error().describe(), Catch::Contains("run ") && Catch::Contains("event "));
}
