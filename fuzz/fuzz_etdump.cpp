// libFuzzer target: an ETDump and its debug buffer (two parts of the input),
// parsed, rendered as text and as JSON.
#include "core/report/etdump_json.h"
#include "core/report/etdump_text.h"
#include "core/report/json_text.h"
#include "fuzz/fuzz_input.h"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    const auto dump = fuzz::parseEtdumpParts(data, size);
    if (!dump)
        return 0;
    std::ostringstream text;
    writeEtdumpText(text, dump.value());
    (void)renderJson(etdumpToJson(dump.value()));
    return 0;
}
