// libFuzzer target: gapscope-capture fix's report (core/report/fix_report.h),
// mutated as JSON (fuzz/json_mutator.h) so that inputs reach the format's rules:
// trials that are not objects, numbers that are text, candidates without a
// module, a fixed session outside the report's folder. A refusal always says
// why; a report that reads never points outside its folder.
#include "core/report/fix_report.h"
#include "fuzz/json_mutator.h"

#include <string_view>

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned seed) {
    return gapscope::fuzz::mutateJson(data, size, maxSize, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    static const std::string kPath = "/reports/run/fix/fix.json";
    const auto report = parseFixReport(std::string_view(reinterpret_cast<const char*>(data), size), kPath);
    if (!report) {
        if (report.error().message.empty() || report.error().where.file != kPath)
            __builtin_trap(); // a refusal always says why, and of which file
        return 0;
    }
    const std::string& fixed = report.value().fixed_session;
    if (!fixed.empty() && fixed.rfind("/reports/run/fix/", 0) != 0)
        __builtin_trap(); // the verified run is never outside the report's folder
    return 0;
}
