// libFuzzer target: a whole comparison. The input is an ETDump (and, after
// the separator, its debug buffer) compared with the demo's ETRecord and
// capture, which are read once; rows are measured on this thread only.
#include "core/capture/aot_capture.h"
#include "core/compare/comparison.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/report/compare_report.h"
#include "core/report/json_text.h"
#include "fuzz/fuzz_input.h"

#include <cstdlib>
#include <memory>

namespace {

struct Reference {
    std::unique_ptr<gapscope::EtRecord> etrecord;
    std::unique_ptr<gapscope::AotCapture> capture;
};

const Reference& reference() {
    static const Reference r = [] {
        Reference out;
        const std::string dir = GAPSCOPE_FUZZ_DEMO_DIR;
        auto etrecord = gapscope::loadEtRecord(dir + "/etrecord.bin");
        auto capture = gapscope::loadAotCapture(dir + "/capture.gscap.safetensors");
        if (!etrecord || !capture)
            std::abort(); // the demo is part of the checkout
        out.etrecord = std::make_unique<gapscope::EtRecord>(std::move(etrecord).value());
        out.capture = std::make_unique<gapscope::AotCapture>(std::move(capture).value());
        return out;
    }();
    return r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    const Reference& ref = reference();
    const auto dump = fuzz::parseEtdumpParts(data, size);
    if (!dump)
        return 0;
    auto planned = planComparison(dump.value(), ref.etrecord.get(), *ref.capture);
    if (!planned)
        return 0;
    for (const auto& plan : planned.value().pending)
        applyMeasurement(planned.value().comparison, measureRow(plan, /*threads=*/1));
    (void)renderJson(comparisonToJson(planned.value().comparison, ReportContext{}));
    return 0;
}
