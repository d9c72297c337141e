// libFuzzer target: an AOT capture. Inputs starting with '{' are the
// gapscope.aot_capture JSON document inside a valid safetensors file (the
// structure-aware mode); anything else is a whole safetensors file. Either way
// the one-pass readers and the JSON DOM must read the header and the document
// alike.
#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_file.h"
#include "core/common/mapped_file.h"
#include "core/report/inputs_json.h"
#include "core/report/json_text.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.empty() && bytes[0] == '{')
        bytes = fuzz::captureWithDocument(bytes);
    const auto file = MappedFile::fromBytes(
        "fuzz.gscap.safetensors", reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    using Parse = JsonParse;
    const auto scan = SafetensorsFile::read(file, Parse::Scan);
    const auto dom = SafetensorsFile::read(file, Parse::Dom);
    if (bool(scan) != bool(dom) || (!dom && scan.error().describe() != dom.error().describe()) ||
        (dom && (scan.value().metadata() != dom.value().metadata() ||
                 scan.value().tensors().size() != dom.value().tensors().size())))
        __builtin_trap(); // the two readings of the header differ
    const auto capture = readAotCapture(file, Parse::Scan);
    const auto domCapture = readAotCapture(file, Parse::Dom);
    if (bool(capture) != bool(domCapture) ||
        (capture ? aotCaptureDocument(capture.value()) != aotCaptureDocument(domCapture.value())
                 : capture.error().describe() != domCapture.error().describe()))
        __builtin_trap(); // the two readings of the document differ
    if (capture)
        (void)renderJson(captureToJson(capture.value()));
    return 0;
}
