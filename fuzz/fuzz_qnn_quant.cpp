// libFuzzer target: the quantisation metadata of a QNN capture, mutated as JSON
// (fuzz/json_mutator.h) so that inputs reach the reader's rules (dtypes, qmin
// and qmax within the dtype, zero points within them, normal scales, per-channel
// axes, axis orders) and then the element plan's (device codes that cannot hold
// the parameters' range, integer references against real values, layouts).
//
// The input is the capture document. It is placed with the tensors of a real
// QNN 8a8w session (tests/data/qnn_multiout_8a8w) and compared with that
// session's ETDump, debug buffer and ETRecord, which are read once; rows are
// measured on this thread.
#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/compare/comparison.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/report/compare_report.h"
#include "core/report/json_text.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/json_mutator.h"

#include <cstdlib>
#include <memory>

namespace {

struct QnnSession {
    std::unique_ptr<gapscope::EtDump> dump;
    std::unique_ptr<gapscope::EtRecord> etrecord;
    gapscope::fuzz::CaptureTensors tensors;
};

const QnnSession& session() {
    static const QnnSession s = [] {
        const std::string dir = GAPSCOPE_FUZZ_QNN_DIR;
        auto dump = gapscope::loadEtdump(dir + "/run.etdp", dir + "/run.debug.bin");
        auto etrecord = gapscope::loadEtRecord(dir + "/etrecord.bin");
        if (!dump || !etrecord)
            std::abort(); // the session is part of the checkout
        QnnSession out;
        out.dump = std::make_unique<gapscope::EtDump>(std::move(dump).value());
        out.etrecord = std::make_unique<gapscope::EtRecord>(std::move(etrecord).value());
        out.tensors = gapscope::fuzz::tensorsOf(dir + "/capture.gscap.safetensors");
        return out;
    }();
    return s;
}

} // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned seed) {
    return gapscope::fuzz::mutateJson(data, size, maxSize, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    const QnnSession& qnn = session();
    const std::string bytes =
        fuzz::captureWithDocument(std::string(reinterpret_cast<const char*>(data), size), qnn.tensors);
    const auto file = MappedFile::fromBytes(
        "fuzz.gscap.safetensors", reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const auto capture = readAotCapture(file);
    if (!capture)
        return 0;
    auto planned = planComparison(*qnn.dump, qnn.etrecord.get(), capture.value());
    if (!planned)
        return 0;
    for (const auto& plan : planned.value().pending) {
        const auto measured = measureRow(plan, /*threads=*/1);
        for (const auto& element : measured.elements)
            if (element.status == RowStatus::Ok && !element.metrics)
                __builtin_trap(); // an ok element always has its numbers
        applyMeasurement(planned.value().comparison, measured);
    }
    (void)renderJson(comparisonToJson(planned.value().comparison, ReportContext{}));
    return 0;
}
