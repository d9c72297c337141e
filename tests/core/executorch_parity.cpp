#include "executorch_parity.h"

#include "core/capture/aot_capture.h"
#include "core/compare/comparison.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

namespace gapscope::test {

namespace {

double jsonDouble(const nlohmann::json& j) {
    if (j.is_number())
        return j.get<double>();
    const auto s = j.get<std::string>();
    if (s == "Infinity")
        return std::numeric_limits<double>::infinity();
    if (s == "-Infinity")
        return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
}

void checkClose(double ours, double theirs) {
    if (std::isnan(theirs)) {
        CHECK(std::isnan(ours));
    } else if (std::isinf(theirs)) {
        CHECK(ours == theirs);
    } else if (theirs == 0.0) {
        CHECK(std::fabs(ours) <= 1e-300);
    } else {
        CHECK(std::fabs(ours - theirs) <= 1e-9 * std::fabs(theirs));
    }
}

} // namespace

void checkExecuTorchParity(const std::string& dir, const std::string& method) {
    INFO("session " << dir << " method " << method);
    const std::string suffix = method.empty() ? "" : "." + method;
    auto dump = loadEtdump(dir + "/run.etdp", dir + "/run.debug.bin");
    REQUIRE(dump);
    auto record = loadEtRecord(dir + "/etrecord.bin");
    REQUIRE(record);
    auto capture = loadAotCapture(dir + "/capture" + suffix + ".gscap.safetensors");
    REQUIRE(capture);
    ComparisonOptions options;
    options.method = method;
    auto comparison = compareSession(dump.value(), &record.value(), capture.value(), options);
    if (!comparison)
        FAIL(comparison.error().describe());
    checkExecuTorchParity(comparison.value(), dir, {"mse", "l1", "snr"}, suffix);
}

void checkExecuTorchParity(const Comparison& comparison, const std::string& dir,
                           const std::vector<std::string>& metrics, const std::string& suffix) {
    std::vector<const ComparisonRow*> rows;
    for (const auto& r : comparison.rows)
        if (r.in_executorch)
            rows.push_back(&r);

    for (const auto& metric : metrics) {
        INFO("metric " << metric);
        std::ifstream in(dir + "/executorch_gap_" + metric + suffix + ".json");
        REQUIRE(in.good());
        const auto expected = nlohmann::json::parse(in);
        REQUIRE(rows.size() == expected.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            INFO("row " << i);
            const auto& want = expected[i];
            const auto& got = *rows[i];
            CHECK(got.id().aot_debug_handle == want.at("aot_debug_handle").get<std::vector<std::int64_t>>());
            CHECK(got.id().runtimeDebugHandle() ==
                  want.at("runtime_debug_handle").get<std::vector<std::int64_t>>());
            CHECK(got.id().aot_ops == want.at("aot_ops").get<std::vector<std::string>>());
            CHECK(got.id().runtime_ops == want.at("runtime_ops").get<std::vector<std::string>>());
            const auto& gap = want.at("gap");
            // ExecuTorch's numbers, which Gapscope keeps apart from its own where it
            // compares differently (size-1 dimensions, dequantisation, layout).
            REQUIRE(got.executorch);
            REQUIRE(got.executorch->size() == gap.size());
            for (std::size_t g = 0; g < gap.size(); ++g) {
                const auto& m = (*got.executorch)[g];
                const double ours = metric == "mse" ? m.mse : metric == "l1" ? m.l1 : m.snr;
                checkClose(ours, jsonDouble(gap[g]));
            }
        }
    }
}

std::size_t checkExecuTorchRowParity(const Comparison& comparison, const std::string& dir) {
    std::vector<const ComparisonRow*> rows;
    for (const auto& r : comparison.rows)
        if (r.in_executorch)
            rows.push_back(&r);
    std::size_t raised = 0;
    for (const std::string metric : {"mse", "l1", "snr"}) {
        INFO("metric " << metric);
        std::ifstream in(dir + "/executorch_rows_" + metric + ".json");
        REQUIRE(in.good());
        const auto expected = nlohmann::json::parse(in);
        REQUIRE(rows.size() == expected.size());
        raised = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& want = expected[i];
            const auto& got = *rows[i];
            INFO("row " << i << " (" << got.id().aot_ops.back() << ")");
            CHECK(got.id().aot_debug_handle == want.at("aot_debug_handle").get<std::vector<std::int64_t>>());
            CHECK(got.id().aot_ops == want.at("aot_ops").get<std::vector<std::string>>());
            CHECK(got.id().runtime_ops == want.at("runtime_ops").get<std::vector<std::string>>());
            if (want.contains("raises")) {
                // No parity is claimed where ExecuTorch has no number.
                INFO("ExecuTorch: " << want.at("raises").get<std::string>());
                CHECK_FALSE(got.executorch);
                ++raised;
                continue;
            }
            const auto& gap = want.at("gap");
            REQUIRE(got.executorch);
            REQUIRE(got.executorch->size() == gap.size());
            for (std::size_t g = 0; g < gap.size(); ++g) {
                const auto& m = (*got.executorch)[g];
                checkClose(metric == "mse" ? m.mse : metric == "l1" ? m.l1 : m.snr, jsonDouble(gap[g]));
            }
        }
    }
    return raised;
}

} // namespace gapscope::test
