// Property tests: random dumps written with our FlatBuffers writer read back
// field for field, with tensor bytes at the offsets the data sinks would use.

#include "core/etdump/etdump_reader.h"
#include "core/etdump/etdump_writer.h"
#include "core/etdump/scalar_type.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>

using namespace gapscope;
using namespace gapscope::test;

namespace {

const std::int8_t kAllTypes[] = {0,  1,  2,  3,  4,  5,  6,  7,  11, 12, 13, 14,
                                 15, 16, 17, 22, 23, 24, 25, 26, 27, 28, 29};

struct Generated {
    EtDump dump;
    std::vector<std::uint8_t> buffer;
    // Raw bytes written for each tensor, in the order tensors appear in the dump.
    std::vector<std::vector<std::uint8_t>> tensorBytes;
};

class DumpGenerator {
public:
    DumpGenerator(std::uint32_t seed, DebugBufferBuilder sink) : m_rng(seed), m_sink(std::move(sink)) {}

    Generated make() {
        Generated g;
        const int runs = pick(1, 4);
        for (int r = 0; r < runs; ++r) {
            RunData run;
            if (coin())
                run.name = "run" + std::to_string(r);
            run.bundled_input_index = pick(-1, 3);
            const int allocators = pick(0, 2);
            for (int a = 0; a < allocators; ++a)
                run.allocators.push_back("alloc" + std::to_string(a));
            const int events = pick(0, 25);
            for (int e = 0; e < events; ++e)
                run.events.push_back(makeEvent(run, g));
            g.dump.runs.push_back(std::move(run));
        }
        g.buffer = m_sink.bytes();
        return g;
    }

private:
    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }
    bool coin() { return pick(0, 1) == 1; }
    std::optional<std::string> maybeString(const char* stem) {
        if (!coin())
            return std::nullopt;
        return std::string(stem) + std::to_string(pick(0, 999));
    }

    Event makeEvent(const RunData& run, Generated& g) {
        switch (pick(0, run.allocators.empty() ? 1 : 2)) {
        case 0: {
            ProfileEvent p;
            p.name = maybeString("native_call_op");
            p.chain_index = pick(-1, 2);
            p.instruction_id = pick(-1, 100);
            p.delegate_debug_id_int = pick(-1, 50);
            p.delegate_debug_id_str = maybeString("aten_node@");
            if (coin())
                p.delegate_debug_metadata =
                    std::vector<std::uint8_t>(static_cast<std::size_t>(pick(0, 9)), 0xAB);
            p.start_time = m_rng();
            p.end_time = p.start_time + static_cast<std::uint64_t>(pick(0, 100000));
            return p;
        }
        case 1: {
            DebugEvent d;
            d.chain_index = coin() ? 0 : std::numeric_limits<std::uint64_t>::max();
            d.instruction_id = pick(-1, 100);
            d.delegate_debug_id_int = pick(-1, 50);
            d.delegate_debug_id_str = maybeString("relu__debugID_");
            d.name = maybeString("name");
            if (pick(0, 9) > 0)
                d.debug_entry = makeValue(g);
            return d;
        }
        default: {
            AllocationEvent a;
            a.allocator_id = pick(1, static_cast<int>(run.allocators.size()));
            a.allocation_size = m_rng();
            return a;
        }
        }
    }

    Value makeValue(Generated& g) {
        Value v;
        v.val = static_cast<std::int8_t>(pick(0, 7));
        if (coin()) {
            v.has_output_marker = true;
            v.output = coin();
        }
        switch (v.type()) {
        case ValueType::Int: v.int_val = static_cast<std::int64_t>(m_rng()) * (coin() ? 1 : -1); break;
        case ValueType::Bool: v.bool_val = coin(); break;
        case ValueType::Float: v.float_val = static_cast<float>(pick(-1000, 1000)) / 8.0f; break;
        case ValueType::Double: v.double_val = static_cast<double>(m_rng()) / 3.0; break;
        case ValueType::Tensor: v.tensors.push_back(makeTensor(g)); break;
        case ValueType::TensorList: {
            const int n = pick(0, 3);
            for (int i = 0; i < n; ++i)
                v.tensors.push_back(makeTensor(g));
            break;
        }
        default: break;
        }
        return v;
    }

    Tensor makeTensor(Generated& g) {
        Tensor t;
        t.scalar_type = kAllTypes[pick(0, static_cast<int>(std::size(kAllTypes)) - 1)];
        const int rank = pick(0, 4);
        std::uint64_t numel = 1;
        for (int d = 0; d < rank; ++d) {
            t.sizes.push_back(pick(0, 5));
            numel *= static_cast<std::uint64_t>(t.sizes.back());
        }
        std::int64_t stride = 1;
        t.strides.resize(t.sizes.size());
        for (std::size_t d = t.sizes.size(); d-- > 0;) {
            t.strides[d] = stride;
            stride *= std::max<std::int64_t>(t.sizes[d], 1);
        }
        std::vector<std::uint8_t> raw(*storageBytes(t.scalar_type, numel));
        for (auto& b : raw)
            b = static_cast<std::uint8_t>(m_rng());
        t.offset = m_sink.append(raw.data(), raw.size());
        g.tensorBytes.push_back(std::move(raw));
        return t;
    }

    std::mt19937 m_rng;
    DebugBufferBuilder m_sink;
};

void compareValue(const EtDump& got, const Value& a, const Value& b, std::size_t& tensorIndex,
                  const Generated& g) {
    CHECK(a.val == b.val);
    CHECK(a.output == b.output);
    CHECK(a.has_output_marker == b.has_output_marker);
    CHECK(a.known);
    switch (b.type()) {
    case ValueType::Int: CHECK(a.int_val == b.int_val); break;
    case ValueType::Bool: CHECK(a.bool_val == b.bool_val); break;
    case ValueType::Float: CHECK(a.float_val == b.float_val); break;
    case ValueType::Double: CHECK(a.double_val == b.double_val); break;
    default: break;
    }
    REQUIRE(a.tensors.size() == b.tensors.size());
    for (std::size_t i = 0; i < a.tensors.size(); ++i) {
        const auto& ta = a.tensors[i];
        const auto& tb = b.tensors[i];
        CHECK(ta.scalar_type == tb.scalar_type);
        CHECK(ta.sizes == tb.sizes);
        CHECK(ta.strides == tb.strides);
        CHECK(ta.offset == tb.offset);
        const auto& raw = g.tensorBytes[tensorIndex++];
        REQUIRE(ta.nbytes);
        CHECK(*ta.nbytes == raw.size());
        if (raw.empty()) {
            CHECK(ta.data == TensorData::Empty);
            continue;
        }
        REQUIRE(ta.data == TensorData::Present);
        const auto bytes = got.tensorBytes(ta);
        REQUIRE(bytes.size == raw.size());
        CHECK(std::memcmp(bytes.data, raw.data(), raw.size()) == 0);
    }
}

void compareDumps(const EtDump& got, const Generated& g) {
    const EtDump& want = g.dump;
    CHECK(got.warnings.empty());
    REQUIRE(got.runs.size() == want.runs.size());
    std::size_t tensorIndex = 0;
    for (std::size_t r = 0; r < want.runs.size(); ++r) {
        const auto& a = got.runs[r];
        const auto& b = want.runs[r];
        CHECK(a.name == b.name);
        CHECK(a.bundled_input_index == b.bundled_input_index);
        CHECK(a.allocators == b.allocators);
        REQUIRE(a.events.size() == b.events.size());
        for (std::size_t e = 0; e < b.events.size(); ++e) {
            INFO("run " << r << " event " << e);
            REQUIRE(a.events[e].index() == b.events[e].index());
            if (const auto* pb = std::get_if<ProfileEvent>(&b.events[e])) {
                const auto& pa = std::get<ProfileEvent>(a.events[e]);
                CHECK(pa.name == pb->name);
                CHECK(pa.chain_index == pb->chain_index);
                CHECK(pa.instruction_id == pb->instruction_id);
                CHECK(pa.delegate_debug_id_int == pb->delegate_debug_id_int);
                CHECK(pa.delegate_debug_id_str == pb->delegate_debug_id_str);
                CHECK(pa.delegate_debug_metadata == pb->delegate_debug_metadata);
                CHECK(pa.start_time == pb->start_time);
                CHECK(pa.end_time == pb->end_time);
            } else if (const auto* db = std::get_if<DebugEvent>(&b.events[e])) {
                const auto& da = std::get<DebugEvent>(a.events[e]);
                CHECK(da.chain_index == db->chain_index);
                CHECK(da.instruction_id == db->instruction_id);
                CHECK(da.delegate_debug_id_int == db->delegate_debug_id_int);
                CHECK(da.delegate_debug_id_str == db->delegate_debug_id_str);
                CHECK(da.name == db->name);
                REQUIRE(da.debug_entry.has_value() == db->debug_entry.has_value());
                if (db->debug_entry)
                    compareValue(got, *da.debug_entry, *db->debug_entry, tensorIndex, g);
            } else if (const auto* ab = std::get_if<AllocationEvent>(&b.events[e])) {
                const auto& aa = std::get<AllocationEvent>(a.events[e]);
                CHECK(aa.allocator_id == ab->allocator_id);
                CHECK(aa.allocation_size == ab->allocation_size);
            }
        }
    }
    CHECK(tensorIndex == g.tensorBytes.size());
}

} // namespace

TEST_CASE("random dumps round-trip through writer and reader", "[etdump][roundtrip]") {
    struct Sink {
        const char* what;
        std::size_t alignment;
        std::size_t baseMisalignment;
    };
    const Sink sinks[] = {{"BufferDataSink, aligned base", 64, 0},
                          {"BufferDataSink, base 16 past a 64-byte boundary", 64, 16},
                          {"FileDataSink, back to back", 1, 0},
                          {"custom sink, 8-byte alignment, odd base", 8, 3}};
    for (const auto& sink : sinks) {
        for (std::uint32_t seed = 1; seed <= 60; ++seed) {
            INFO(sink.what << ", seed " << seed);
            DumpGenerator gen(seed * 7919u + static_cast<std::uint32_t>(sink.alignment),
                              DebugBufferBuilder(sink.alignment, sink.baseMisalignment));
            const auto g = gen.make();
            const bool prefixed = seed % 3 != 0;
            const auto bytes = writeEtdump(g.dump, prefixed);
            auto parsed = parseBytes(bytes, &g.buffer);
            if (!parsed)
                FAIL(parsed.error().describe());
            CHECK(parsed.value().size_prefixed == prefixed);
            compareDumps(parsed.value(), g);
        }
    }
}

TEST_CASE("a misaligned debug buffer base gives offsets that are not multiples of 64",
          "[etdump][roundtrip]") {
    DebugBufferBuilder sink(64, 16);
    const float values[3] = {1.5f, -2.0f, 4.0f};
    CHECK(sink.append(values, sizeof values) == 48);
    CHECK(sink.append(values, sizeof values) == 112);
    CHECK(sink.append(values, 0) == -1);
    for (std::size_t i = 0; i < 48; ++i)
        CHECK(sink.bytes()[i] == 0);
}

TEST_CASE("many runs and events read back in order, with progress", "[etdump][roundtrip]") {
    EtDump dump;
    for (int r = 0; r < 50; ++r) {
        RunData run;
        run.name = "Execute";
        for (int e = 0; e < 400; ++e) {
            ProfileEvent p;
            p.name = "OPERATOR_CALL";
            p.instruction_id = e;
            p.start_time = static_cast<std::uint64_t>(r * 1000 + e);
            run.events.push_back(p);
        }
        dump.runs.push_back(std::move(run));
    }
    const auto bytes = writeEtdump(dump);
    std::uint64_t lastDone = 0, calls = 0, total = 0;
    EtdumpReadOptions options;
    options.progress = [&](std::uint64_t done, std::uint64_t t) {
        CHECK(done >= lastDone);
        lastDone = done;
        total = t;
        ++calls;
        return true;
    };
    auto parsed = parseEtdump({bytes.data(), bytes.size()}, options);
    REQUIRE(parsed);
    CHECK(total == 20000);
    CHECK(lastDone == 20000);
    CHECK(calls >= 19);
    REQUIRE(parsed.value().runs.size() == 50);
    CHECK(std::get<ProfileEvent>(parsed.value().runs[49].events[399]).start_time == 49399);
}

TEST_CASE("the progress callback cancels a read", "[etdump][roundtrip]") {
    EtDump dump;
    RunData run;
    for (int e = 0; e < 5000; ++e)
        run.events.push_back(AllocationEvent{1, 8});
    run.allocators.push_back("planned");
    dump.runs.push_back(run);
    const auto bytes = writeEtdump(dump);
    EtdumpReadOptions options;
    options.name = "big.etdp";
    options.progress = [](std::uint64_t done, std::uint64_t) { return done < 2048; };
    auto parsed = parseEtdump({bytes.data(), bytes.size()}, options);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().code == ErrorCode::Cancelled);
    CHECK_THAT(parsed.error().describe(), Catch::Contains("big.etdp") && Catch::Contains("cancelled"));
}
