// The reader against ETDumps written by ExecuTorch's own ETDumpGen: every field
// of every event as the fixtures' README lists it.

#include "core/common/sha256.h"
#include "core/etdump/element_decode.h"
#include "core/etdump/etdump_reader.h"
#include "core/etdump/scalar_type.h"
#include "core/etdump/tensor_stats.h"
#include "fixture_expectations.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace gapscope;
using namespace gapscope::test;

namespace {

std::string valueTypeLabel(const Value& v) {
    switch (v.type()) {
    case ValueType::Tensor: return "Tensor";
    case ValueType::TensorList: return "TensorList";
    case ValueType::Int: return "Int";
    case ValueType::Bool: return "Bool";
    case ValueType::Double: return "Double";
    default: return "other";
    }
}

void checkTensor(const EtDump& dump, const Tensor& t, const ExpectedTensor& want) {
    CHECK(scalarTypeName(t.scalar_type) == want.dtype);
    CHECK(t.sizes == want.sizes);
    CHECK(t.strides == want.strides);
    CHECK(t.offset == want.offset);
    REQUIRE(t.nbytes);
    CHECK(*t.nbytes == want.nbytes);
    if (want.nbytes == 0) {
        CHECK(t.data == TensorData::Empty);
        return;
    }
    REQUIRE(t.data == TensorData::Present);
    const auto bytes = dump.tensorBytes(t);
    REQUIRE(bytes.size == want.nbytes);
    const auto type = static_cast<ScalarType>(t.scalar_type);
    for (std::size_t i = 0; i < want.first.size(); ++i) {
        const double got = decodeElement(type, bytes, i);
        CHECK(got == want.first[i]);
        CHECK(std::signbit(got) == std::signbit(want.first[i])); // -0.0 survives
    }
    const auto stats = computeTensorStats(type, bytes, *t.numel);
    // The README prints 15 significant digits; beyond 2^53 that is a rounding.
    if (std::fabs(want.sum) < 9007199254740992.0)
        CHECK(stats.sum == want.sum);
    else
        CHECK(stats.sum == Approx(want.sum).epsilon(1e-14));
}

void checkEvents(const EtDump& dump, const std::vector<ExpectedEvent>& expected) {
    REQUIRE(dump.runs.size() == 1);
    const auto& run = dump.runs[0];
    CHECK(run.name == std::optional<std::string>("Execute"));
    CHECK(run.bundled_input_index == -1);
    CHECK(run.allocators.empty());
    REQUIRE(run.events.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("event " << i);
        const auto& want = expected[i];
        const auto& ev = run.events[i];
        if (want.kind == Kind::Profile) {
            const auto* p = std::get_if<ProfileEvent>(&ev);
            REQUIRE(p);
            CHECK(static_cast<std::uint64_t>(static_cast<std::int64_t>(p->chain_index)) == want.chainIndex);
            CHECK(p->instruction_id == want.instructionId);
            CHECK(p->delegate_debug_id_int == want.delegateIdInt);
            CHECK(p->delegate_debug_id_str == want.delegateIdStr);
            CHECK(p->name == want.name);
            CHECK(p->start_time == want.startTime);
            CHECK(p->end_time == want.endTime);
            // ETDumpGen always writes metadata for delegate events (empty), never otherwise.
            CHECK(p->delegate_debug_metadata.has_value() == want.delegateIdStr.has_value());
            continue;
        }
        const auto* d = std::get_if<DebugEvent>(&ev);
        REQUIRE(d);
        CHECK(d->chain_index == want.chainIndex);
        CHECK(d->instruction_id == want.instructionId);
        CHECK(d->delegate_debug_id_int == want.delegateIdInt);
        CHECK(d->delegate_debug_id_str == want.delegateIdStr);
        CHECK(!d->name); // ETDumpGen never writes DebugEvent.name
        REQUIRE(d->debug_entry);
        const auto& v = *d->debug_entry;
        CHECK(v.known);
        CHECK(valueTypeLabel(v) == want.valueType);
        CHECK(v.output == want.output);
        CHECK(v.has_output_marker == want.output);
        if (v.type() == ValueType::Int)
            CHECK(static_cast<double>(v.int_val) == want.scalar);
        if (v.type() == ValueType::Bool)
            CHECK((v.bool_val ? 1.0 : 0.0) == want.scalar);
        if (v.type() == ValueType::Double)
            CHECK(v.double_val == want.scalar);
        REQUIRE(v.tensors.size() == want.tensors.size());
        for (std::size_t t = 0; t < want.tensors.size(); ++t) {
            INFO("tensor " << t);
            checkTensor(dump, v.tensors[t], want.tensors[t]);
        }
    }
}

std::size_t countKind(const RunData& run, std::size_t variantIndex) {
    std::size_t n = 0;
    for (const auto& e : run.events)
        n += e.index() == variantIndex ? 1 : 0;
    return n;
}

} // namespace

TEST_CASE("fixture a: fp32 operator chain, every event", "[etdump][fixture]") {
    const auto dump = loadFixture("a_fp32_op_chain");
    CHECK(dump.size_prefixed);
    CHECK(dump.version == 0);
    CHECK(dump.warnings.empty());
    checkEvents(dump, kAFp32OpChain);
    CHECK(countKind(dump.runs[0], 1) == 5); // DebugEvents
    CHECK(countKind(dump.runs[0], 0) == 9); // ProfileEvents
}

TEST_CASE("fixture b: QNN delegate intermediates, every event", "[etdump][fixture]") {
    const auto dump = loadFixture("b_qnn_delegate_intermediates");
    CHECK(dump.warnings.empty());
    checkEvents(dump, kBQnnDelegateIntermediates);
    CHECK(countKind(dump.runs[0], 1) == 18);
    CHECK(countKind(dump.runs[0], 0) == 5);
}

TEST_CASE("fixture c: every dtype ETDumpGen writes, every event", "[etdump][fixture]") {
    const auto dump = loadFixture("c_mixed_dtypes");
    CHECK(dump.warnings.empty());
    checkEvents(dump, kCMixedDtypes);
    CHECK(countKind(dump.runs[0], 1) == 19);
    CHECK(countKind(dump.runs[0], 0) == 0);

    SECTION("the int64 tensor sums exactly in float64 index order") {
        const auto& t = std::get<DebugEvent>(dump.runs[0].events[4]).debug_entry->tensors[0];
        const auto bytes = dump.tensorBytes(t);
        const double want = -1099511627776.0 + -1.0 + 0.0 + static_cast<double>(4611686018427387911LL);
        CHECK(computeTensorStats(ScalarType::Long, bytes, 4).sum == want);
        CHECK(decodeElement(ScalarType::Long, bytes, 3) == static_cast<double>(4611686018427387911LL));
    }
    SECTION("int32 extremes and the subnormal float survive") {
        const auto& i32 = std::get<DebugEvent>(dump.runs[0].events[3]).debug_entry->tensors[0];
        const auto s = computeTensorStats(ScalarType::Int, dump.tensorBytes(i32), 6);
        CHECK(*s.min == -2147483648.0);
        CHECK(*s.max == 2147483647.0);
        const auto& f32 = std::get<DebugEvent>(dump.runs[0].events[7]).debug_entry->tensors[0];
        CHECK(decodeElement(ScalarType::Float, dump.tensorBytes(f32), 1) == static_cast<double>(1e-38f));
    }
}

TEST_CASE("fixtures without their debug buffer keep metadata and never invent zeros", "[etdump][fixture]") {
    const auto dump = loadFixture("a_fp32_op_chain", false);
    CHECK(!dump.debug_buffer);
    std::size_t tensors = 0;
    for (const auto& e : dump.runs[0].events) {
        if (const auto* d = std::get_if<DebugEvent>(&e)) {
            for (const auto& t : d->debug_entry->tensors) {
                CHECK(t.data == TensorData::None);
                CHECK(dump.tensorBytes(t).empty());
                CHECK(*t.nbytes == 24);
                ++tensors;
            }
        }
    }
    CHECK(tensors == 5);
}

TEST_CASE("ExecuTorch's tutorial ETDump: two runs of profile events", "[etdump][fixture]") {
    auto result = loadEtdump(fixturePath("executorch-samples/etdump.etdp"), std::nullopt);
    REQUIRE(result);
    const auto& dump = result.value();
    CHECK(dump.size_prefixed);
    CHECK(dump.warnings.empty());
    REQUIRE(dump.runs.size() == 2);

    const auto& init = dump.runs[0];
    CHECK(init.name == std::optional<std::string>("Default"));
    REQUIRE(init.events.size() == 2);
    CHECK(std::get<ProfileEvent>(init.events[0]).name == std::optional<std::string>("Method::init"));
    CHECK(std::get<ProfileEvent>(init.events[1]).name == std::optional<std::string>("Program::load_method"));
    for (const auto& e : init.events) {
        CHECK(std::get<ProfileEvent>(e).chain_index == -1);
        CHECK(std::get<ProfileEvent>(e).instruction_id == 0);
    }

    const auto& exec = dump.runs[1];
    CHECK(exec.name == std::optional<std::string>("Execute"));
    REQUIRE(exec.events.size() == 29); // 14 instructions x (native_call_*, OPERATOR_CALL) + Method::execute
    for (std::int32_t instr = 0; instr < 14; ++instr) {
        INFO("instruction " << instr);
        const auto& kernel = std::get<ProfileEvent>(exec.events[static_cast<std::size_t>(2 * instr)]);
        const auto& op = std::get<ProfileEvent>(exec.events[static_cast<std::size_t>(2 * instr + 1)]);
        REQUIRE(kernel.name);
        CHECK(kernel.name->rfind("native_call_", 0) == 0);
        CHECK(op.name == std::optional<std::string>("OPERATOR_CALL"));
        CHECK(kernel.instruction_id == instr);
        CHECK(op.instruction_id == instr);
        CHECK(kernel.chain_index == 0);
        // The kernel scope nests inside its OPERATOR_CALL scope.
        CHECK(op.start_time <= kernel.start_time);
        CHECK(kernel.end_time <= op.end_time);
    }
    CHECK(std::get<ProfileEvent>(exec.events[0]).name ==
          std::optional<std::string>("native_call_convolution.out"));
    CHECK(std::get<ProfileEvent>(exec.events[2]).name == std::optional<std::string>("native_call_relu.out"));
    const auto& method = std::get<ProfileEvent>(exec.events[28]);
    CHECK(method.name == std::optional<std::string>("Method::execute"));
    CHECK(method.chain_index == -1);
    CHECK(method.start_time <= std::get<ProfileEvent>(exec.events[1]).start_time);
}

TEST_CASE("the fixture files are the ones the README describes", "[etdump][fixture]") {
    const std::pair<const char*, const char*> files[] = {
        {"etdump/a_fp32_op_chain.etdp", "28f8f79e31faa212aa3efdaaa98551b74e2be5c981024ad84e53a5c1094b42c3"},
        {"etdump/a_fp32_op_chain.debug.bin",
         "4e5e76eeac487550d1a71575fa181182538f4aa31ea29d4175ddff26574af02e"},
        {"etdump/b_qnn_delegate_intermediates.etdp",
         "3c5a604edf9549bd679b6cbc10fbcf3855b94e371b97443a04631c0eeed43dce"},
        {"etdump/b_qnn_delegate_intermediates.debug.bin",
         "9118cd4c1ecccc807dcfbdc5dae4e8dc13bbfe44c92e79e76c76f9a105f96b0c"},
        {"etdump/c_mixed_dtypes.etdp", "9c3f668f4889478661643149a94c6d8bee1532048a8a42401b9d1b76f256fd42"},
        {"etdump/c_mixed_dtypes.debug.bin",
         "68b23b89a31516ff404f10f0b32d590a127288849d8158cd33085f9932ee7eb8"},
    };
    for (const auto& [name, sha] : files) {
        INFO(name);
        const auto bytes = readBytes(fixturePath(name));
        CHECK(sha256Hex({bytes.data(), bytes.size()}) == sha);
    }
}
