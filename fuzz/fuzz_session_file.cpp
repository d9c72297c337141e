// libFuzzer target: a saved session's document (core/session/session_document.h),
// mutated as JSON (fuzz/json_mutator.h) so that inputs reach the format's rules:
// runs that are not whole numbers, thresholds naming no metric or no finite
// value, selections without a row, paths that are not strings. A document that
// reads must be written back to text that reads again to the same document.
#include "core/session/session_document.h"
#include "fuzz/json_mutator.h"

#include <string_view>

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned seed) {
    return gapscope::fuzz::mutateJson(data, size, maxSize, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    const auto document = parseSessionDocument(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!document) {
        if (document.error().message.empty())
            __builtin_trap(); // a refusal always says why
        return 0;
    }
    const auto again = parseSessionDocument(sessionDocumentText(document.value()));
    if (!again || !(again.value() == document.value()))
        __builtin_trap(); // the writer and the reader disagree
    return 0;
}
