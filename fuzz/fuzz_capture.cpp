// libFuzzer target: an AOT capture. Inputs starting with '{' are the
// gapscope.aot_capture JSON document inside a valid safetensors file, mutated as
// JSON (fuzz/json_mutator.h: the structure-aware mode, which reaches the
// document's rules); anything else is a whole safetensors file, mutated as bytes,
// read as a capture and as the method's saved outputs (saved_outputs.h).
#include "core/align/saved_outputs.h"
#include "core/capture/aot_capture.h"
#include "core/capture/capture_document_reader.h"
#include "core/capture/safetensors_file.h"
#include "core/common/mapped_file.h"
#include "core/report/inputs_json.h"
#include "core/report/json_text.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/json_mutator.h"

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned seed) {
    if (size > 0 && data[0] == '{')
        return gapscope::fuzz::mutateJson(data, size, maxSize, seed);
    return LLVMFuzzerMutate(data, size, maxSize);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.empty() && bytes[0] == '{')
        bytes = fuzz::captureWithDocument(bytes);
    const auto file = MappedFile::fromBytes(
        "fuzz.gscap.safetensors", reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    // Any fault is an Error, never a crash; what reads is written back by the
    // writer and reads again, over the same tensors, to the same document.
    const auto capture = readAotCapture(file);
    if (capture) {
        const std::string written = aotCaptureDocument(capture.value());
        const auto back = readCaptureDocument(written, *capture.value().file, "again");
        if (!back || aotCaptureDocument(back.value()) != written)
            __builtin_trap(); // the reader and the writer disagree
    }
    if (capture)
        (void)renderJson(captureToJson(capture.value()));
    // The same bytes as saved outputs: an Error or outputs whose every tensor is
    // the file's, in index order.
    if (size == 0 || data[0] != '{') {
        const auto saved = SavedOutputs::read(file);
        if (saved)
            for (std::size_t e = 0; e < saved.value().executions(); ++e)
                for (const auto& v : saved.value().outputs(e))
                    if (!v.tensor || !v.bytes || v.bytes->size != v.tensor->nbytes.value_or(~0ull))
                        __builtin_trap();
    }
    return 0;
}
