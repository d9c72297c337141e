#include "quantization_error_checks.h"

#include "core/capture/aot_capture.h"
#include "core/compare/comparison.h"
#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"

#include <catch2/catch.hpp>

namespace gapscope::test {

void checkQuantizationErrorVisible(const std::string& dir) {
    INFO("session " << dir);
    auto dump = loadEtdump(dir + "/run.etdp", dir + "/run.debug.bin");
    auto record = loadEtRecord(dir + "/etrecord.bin");
    auto simulated = loadAotCapture(dir + "/capture.gscap.safetensors");
    auto fp = loadAotCapture(dir + "/capture_float.gscap.safetensors");
    REQUIRE((dump && record && simulated && fp));

    auto againstSimulation = compareSession(dump.value(), &record.value(), simulated.value());
    auto againstFloat = compareSession(dump.value(), &record.value(), fp.value());
    REQUIRE((againstSimulation && againstFloat));
    const auto& c = againstFloat.value();
    REQUIRE(c.rows.size() == againstSimulation.value().rows.size());
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        INFO("row " << i);
        const auto& row = c.rows[i];
        REQUIRE(row.status == RowStatus::Ok);
        // PT2E's simulation matches the device to ~140 dB; the float model is
        // tens of dB away: int8 error.
        CHECK(*rowMetric(row, Metric::Snr) < 60.0);
        CHECK(*rowMetric(againstSimulation.value().rows[i], Metric::Snr) > 100.0);
        if (const auto steps = rowMetric(row, Metric::RmseSteps))
            CHECK(*steps < 2.0); // within a couple of quantisation steps
    }
    const auto introducers = errorIntroducers(c, referenceGraphFor(record.value(), fp.value()));
    REQUIRE(introducers.size() >= 2);
    for (std::size_t k = 0; k < 2; ++k) {
        INFO("introducer " << k);
        CHECK(c.rows[introducers[k].row].id().runtime_ops == std::vector<std::string>{"DELEGATE_CALL"});
        CHECK(introducers[k].added > 0);
    }
}

std::size_t checkFloatReferenceThroughFolds(const std::string& dir) {
    INFO("session " << dir);
    auto dump = loadEtdump(dir + "/run.etdp", dir + "/run.debug.bin");
    auto record = loadEtRecord(dir + "/etrecord.bin");
    auto fp = loadAotCapture(dir + "/capture_float.gscap.safetensors");
    auto prefused = loadAotCapture(dir + "/prefused/capture_float.gscap.safetensors");
    REQUIRE((dump && record && fp && prefused));
    auto throughFolds = compareSession(dump.value(), &record.value(), fp.value());
    auto truth = compareSession(dump.value(), &record.value(), prefused.value());
    REQUIRE((throughFolds && truth));
    const auto& c = throughFolds.value();
    const auto& want = truth.value();
    REQUIRE(c.rows.size() == want.rows.size());
    REQUIRE(c.rows.size() >= 15); // one row per op, not one delegate row
    std::size_t folded = 0;
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        const auto& row = c.rows[i];
        INFO("row " << i << " " << row.id().aot_ops.front() << ": " << row.reason);
        CHECK(row.id().aot_debug_handle == want.rows[i].id().aot_debug_handle);
        REQUIRE(row.status == RowStatus::Ok);
        REQUIRE(want.rows[i].status == RowStatus::Ok);
        const double snr = *rowMetric(row, Metric::Snr);
        CHECK(snr == Approx(*rowMetric(want.rows[i], Metric::Snr)).margin(1e-6));
        const auto& op = row.id().aot_ops.front();
        if (op.rfind("conv2d", 0) == 0 || op.rfind("linear", 0) == 0) {
            ++folded;
            CHECK(snr > 10.0); // the conv before its BatchNorm read -7 to +8 dB
        }
    }
    const MetricThreshold gate{Metric::Snr, 20.0};
    const auto first = firstDivergence(c, gate);
    const auto expected = firstDivergence(want, gate);
    REQUIRE(first.has_value() == expected.has_value());
    if (first)
        CHECK(first->row == expected->row);
    return folded;
}

} // namespace gapscope::test
