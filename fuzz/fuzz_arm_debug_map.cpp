// libFuzzer target: the debug.json ExecuTorch's Arm backend writes beside a TOSA
// graph (core/backends/arm_debug_map.h), mutated as JSON (fuzz/json_mutator.h)
// from the committed sessions' own maps: entries without tosa_info, traces
// that are neither lists nor the schema's note, names given twice. A refusal
// always says why; a map that reads names each TOSA tensor once.
#include "core/backends/arm_debug_map.h"
#include "fuzz/json_mutator.h"

#include <set>
#include <string_view>

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned seed) {
    return gapscope::fuzz::mutateJson(data, size, maxSize, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    const auto map =
        readArmDebugMap(std::string_view(reinterpret_cast<const char*>(data), size), "debug.json");
    if (!map) {
        if (map.error().message.empty())
            __builtin_trap(); // a refusal always says why
        return 0;
    }
    std::set<std::string> names;
    for (const auto& e : map.value().events)
        if (e.tosa_tensor.empty() || !names.insert(e.tosa_tensor).second)
            __builtin_trap(); // every op is named, once
    return 0;
}
