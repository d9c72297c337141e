// libFuzzer target: an AOT capture. Inputs starting with '{' are the
// gapscope.aot_capture JSON document inside a valid safetensors file (the
// structure-aware mode); anything else is a whole safetensors file.
#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/report/inputs_json.h"
#include "core/report/json_text.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.empty() && bytes[0] == '{')
        bytes = fuzz::captureWithDocument(bytes);
    const auto file = MappedFile::fromBytes("fuzz.gscap.safetensors",
                                            reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const auto capture = readAotCapture(file);
    if (capture)
        (void)renderJson(captureToJson(capture.value()));
    return 0;
}
