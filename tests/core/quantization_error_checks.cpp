#include "quantization_error_checks.h"

#include "core/capture/aot_capture.h"
#include "core/compare/comparison.h"
#include "core/compare/findings.h"
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
        CHECK(*rowMetric(row, "snr") < 60.0);
        CHECK(*rowMetric(againstSimulation.value().rows[i], "snr") > 100.0);
        if (const auto steps = rowMetric(row, "rmse_steps"))
            CHECK(*steps < 2.0); // within a couple of quantisation steps
    }
    const auto introducers = errorIntroducers(c, referenceGraphFor(record.value(), fp.value()));
    REQUIRE(introducers.size() >= 2);
    for (std::size_t k = 0; k < 2; ++k) {
        INFO("introducer " << k);
        CHECK(c.rows[introducers[k].row].runtime_ops == std::vector<std::string>{"DELEGATE_CALL"});
        CHECK(introducers[k].added > 0);
    }
}

} // namespace gapscope::test
