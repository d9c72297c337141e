// Debug-handle resolution: ExecuTorch's Inspector rules and the QNN conventions.

#include "core/align/debug_handle_resolver.h"
#include "core/common/decimal.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

using namespace gapscope;
using namespace gapscope::test;

namespace {

MethodMaps qnnMaps() {
    MethodMaps m;
    m.debug_handle_map[0] = {{1, 2, 3, 4, 5}, true};
    m.debug_handle_map[1] = {{6}, false};
    DelegateMapping d;
    d.backend = "QnnBackend";
    d.identifiers = {{"aten_convolution_default@0", {1}},
                     {"aten_relu_default@0", {2}},
                     {"aten_topk_default@0", {3}},
                     {"aten_topk_default@1", {3}},
                     {"output_aten_add_tensor@0", {5}},
                     {"1", {1}},
                     {"2", {2}},
                     {"12", {4}},
                     {"3", {1}},
                     {"4", {2}}};
    m.delegate_map[0] = d;
    return m;
}

EventKey key(std::int32_t instr, std::int32_t idInt = -1, std::optional<std::string> idStr = std::nullopt) {
    EventKey k;
    k.instruction_id = instr;
    k.delegate_debug_id_int = idInt;
    k.delegate_debug_id_str = std::move(idStr);
    return k;
}

} // namespace

TEST_CASE("operator and DELEGATE_CALL events resolve through debug_handle_map", "[resolve]") {
    const auto m = qnnMaps();
    auto r = resolveDebugHandles(&m, key(1));
    CHECK(r.source == HandleSource::InstructionMap);
    CHECK(r.handles == std::vector<std::int64_t>{6});
    auto call = resolveDebugHandles(&m, key(0));
    CHECK(call.handles == std::vector<std::int64_t>{1, 2, 3, 4, 5});
    CHECK(call.backend == "QnnBackend");
    auto missing = resolveDebugHandles(&m, key(9));
    CHECK(missing.source == HandleSource::None);
    CHECK_THAT(missing.reason, Catch::Contains("instruction 9"));
}

TEST_CASE("QNN tensor names resolve through the delegate map with their output index", "[resolve][qnn]") {
    const auto m = qnnMaps();
    auto relu = resolveDebugHandles(&m, key(0, -1, "aten_relu_default@0"));
    CHECK(relu.source == HandleSource::DelegateExact);
    CHECK(relu.handles == std::vector<std::int64_t>{2});
    CHECK(relu.output_index == std::optional<int>(0));
    auto idx = resolveDebugHandles(&m, key(0, -1, "aten_topk_default@1"));
    CHECK(idx.handles == std::vector<std::int64_t>{3});
    CHECK(idx.output_index == std::optional<int>(1));
    // A string id with no exact key: ExecuTorch's substring rule (old QNN ids were bare node names).
    auto profiled = resolveDebugHandles(&m, key(0, -1, "aten_relu_default@0 (cycles)"));
    CHECK(profiled.source == HandleSource::DelegateSubstring);
    CHECK(profiled.handles == std::vector<std::int64_t>{2});
}

TEST_CASE("integer delegate ids: str(id) then every substring key, last in map order wins", "[resolve]") {
    const auto m = qnnMaps();
    // "12" matches keys "1", "2" and "12"; "12" comes last of them in map order.
    auto r = resolveDebugHandles(&m, key(0, 12));
    CHECK(r.handles == std::vector<std::int64_t>{4});
    auto three = resolveDebugHandles(&m, key(0, 3));
    CHECK(three.handles == std::vector<std::int64_t>{1});
    CHECK(three.source == HandleSource::DelegateExact);
    auto none = resolveDebugHandles(&m, key(0, 7));
    CHECK(none.source == HandleSource::None);
    CHECK_THAT(none.reason, Catch::Contains("'7'"));
}

TEST_CASE("__debugID_N names resolve to handle N without any ETRecord", "[resolve][qnn]") {
    auto r = resolveDebugHandles(nullptr, key(0, -1, "aten_convolution_default__debugID_3"));
    CHECK(r.source == HandleSource::DebugIdSuffix);
    CHECK(r.handles == std::vector<std::int64_t>{3});
    CHECK(debugIdSuffix("relu__debugID_4") == std::optional<std::int64_t>(4));
    CHECK_FALSE(debugIdSuffix("relu__debugID_"));
    CHECK_FALSE(debugIdSuffix("relu__debugID_0"));
    CHECK_FALSE(debugIdSuffix("relu__debugID_4x"));
    auto noRecord = resolveDebugHandles(nullptr, key(0, -1, "aten_relu_default@0"));
    CHECK(noRecord.source == HandleSource::None);
    CHECK(debugIdSuffix("a__debugID_5__debugID_7") == std::optional<std::int64_t>(7));
    CHECK_FALSE(debugIdSuffix("a__debugID_5__debugID_"));
    CHECK_FALSE(debugIdSuffix("a__debugID_5@0"));
    CHECK_FALSE(debugIdSuffix("debugID_5"));
    CHECK_FALSE(debugIdSuffix("5"));
    CHECK_FALSE(debugIdSuffix("x__debugID_99999999999999999999")); // beyond int64
}

TEST_CASE("__debugID_N: the digits after the marker's last occurrence, as the name's last find says",
          "[resolve][qnn]") {
    // The rule as first written (std::string::rfind), against the reader's
    // search from the end, on names built from the marker's own pieces.
    const auto byLastFind = [](const std::string& name) -> std::optional<std::int64_t> {
        const std::string marker = "__debugID_";
        const auto at = name.rfind(marker);
        if (at == std::string::npos)
            return std::nullopt;
        auto n = parseDecimal(std::string_view(name).substr(at + marker.size()));
        if (!n || *n <= 0)
            return std::nullopt;
        return n;
    };
    const std::vector<std::string> pieces = {"__debugID_", "_", "debugID_", "0", "7", "42", "@", "x", "__"};
    std::mt19937 rng(29);
    std::size_t found = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string name;
        const int n = static_cast<int>(rng() % 6);
        for (int k = 0; k < n; ++k)
            name += pieces[rng() % pieces.size()];
        INFO(name);
        REQUIRE(debugIdSuffix(name) == byLastFind(name));
        found += byLastFind(name).has_value();
    }
    CHECK(found > 300); // the names exercise both answers (540 of 20,000 with this seed)
}

TEST_CASE("a delegated event of an instruction without a delegate_map entry falls back", "[resolve]") {
    MethodMaps m;
    m.debug_handle_map[2] = {{7, 8}, true};
    auto r = resolveDebugHandles(&m, key(2, 5));
    CHECK(r.source == HandleSource::DelegateFallback);
    CHECK(r.handles == std::vector<std::int64_t>{7, 8});
}

TEST_CASE("every delegate event of the QNN fixture resolves with QNN-style maps", "[resolve][fixture]") {
    const auto dump = loadFixture("b_qnn_delegate_intermediates");
    const auto m = qnnMaps();
    int resolved = 0, viaSuffix = 0;
    for (const auto& e : dump.runs[0].events) {
        const auto* d = std::get_if<DebugEvent>(&e);
        if (!d || d->chain_index != 0)
            continue;
        EventKey k{d->instruction_id, d->delegate_debug_id_int, d->delegate_debug_id_str};
        if (!k.delegated())
            continue;
        const auto r = resolveDebugHandles(&m, k);
        INFO(k.delegateId());
        if (k.delegateId() == "aten_gt_scalar@0" || k.delegateId() == "6" || k.delegateId() == "7" ||
            k.delegateId() == "5" || k.delegateId() == "aten_topk_default" ||
            k.delegateId() == "quantized_decomposed_quantize_per_tensor_default@0") {
            // Not in these maps ("7": no key is a substring; "5": neither).
            CHECK(r.source == HandleSource::None);
            continue;
        }
        CHECK_FALSE(r.handles.empty());
        ++resolved;
        viaSuffix += r.source == HandleSource::DebugIdSuffix ? 1 : 0;
    }
    CHECK(resolved == 9); // 5 QNN names, 2 __debugID_ names, int ids 3 and 4
    CHECK(viaSuffix == 2);
}

TEST_CASE("decimal integers: digits only, within int64", "[parse]") {
    using gapscope::parseDecimal;
    CHECK(parseDecimal("0") == 0);
    CHECK(parseDecimal("007") == 7);
    CHECK(parseDecimal("9223372036854775807") == INT64_MAX);
    for (const char* bad :
         {"", "-1", "+1", " 1", "1 ", "1a", "0x10", "9223372036854775808", "99999999999999999999"})
        CHECK_FALSE(parseDecimal(bad));
    CHECK(gapscope::debugIdSuffix("conv__debugID_12") == 12);
    CHECK_FALSE(gapscope::debugIdSuffix("conv__debugID_-12"));
    CHECK_FALSE(gapscope::debugIdSuffix("conv__debugID_99999999999999999999"));
}
