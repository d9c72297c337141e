// libFuzzer target: the Arm backend's two files (issue 61), mutated as JSON
// (fuzz/json_mutator.h). An input that starts with '[' is the debug.json
// ExecuTorch's Arm backend writes beside a TOSA graph
// (core/backends/arm_debug_map.h), from the committed sessions' own maps:
// entries without tosa_info, traces that are neither lists nor the schema's
// note, names given twice. One that starts with '{' is a TOSA run's document
// (core/backends/tosa_run.h) in a file holding the committed INT8 run's
// tensors: ops naming tensors that are not there, permutations that are not
// ones, shapes and inputs that disagree. A refusal always says why; a map
// that reads names each TOSA tensor once; a run that reads gives each op a
// layout that is a permutation of its axes, or none, and tensors inside the file.
#include "core/backends/arm_debug_map.h"
#include "core/backends/arm_layout.h"
#include "core/backends/arm_run_events.h"
#include "core/backends/tosa_run.h"
#include "core/common/mapped_file.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/json_mutator.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string_view>

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned seed) {
    return gapscope::fuzz::mutateJson(data, size, maxSize, seed);
}

namespace {

void runDocument(const std::string& document) {
    using namespace gapscope;
    static const fuzz::CaptureTensors tensors =
        fuzz::tensorsOf(std::string(GAPSCOPE_FUZZ_ARM_DIR) + "/tosa_run.safetensors");
    const std::string bytes = fuzz::safetensorsWithDocument(kTosaRunMetadataKey, document, tensors);
    const auto file = MappedFile::fromBytes(
        "tosa_run.safetensors", reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const auto run = readTosaRun(file);
    if (!run) {
        if (run.error().message.empty())
            __builtin_trap(); // a refusal always says why
        return;
    }
    const auto orders = tosaAxisOrders(run.value());
    if (orders.size() != run.value().ops.size())
        __builtin_trap();
    for (std::size_t k = 0; k < orders.size(); ++k) {
        if (!orders[k])
            continue;
        std::vector<std::int64_t> sorted = *orders[k], axes(sorted.size());
        std::sort(sorted.begin(), sorted.end());
        std::iota(axes.begin(), axes.end(), 0);
        if (sorted != axes || sorted.size() != run.value().ops[k].shape.size())
            __builtin_trap(); // a layout is a permutation of the op's axes
    }
    const EtDump dump = armRunEtDump(run.value(), 1);
    for (const auto& e : dump.runs.front().events)
        for (const auto& t : std::get<DebugEvent>(e).debug_entry->tensors)
            if (dump.tensorBytes(t).size != static_cast<std::size_t>(*t.nbytes))
                __builtin_trap(); // every tensor is read whole, from inside the file
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gapscope;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (!text.empty() && text.front() == '{') {
        runDocument(std::string(text));
        return 0;
    }
    const auto map = readArmDebugMap(text, "debug.json");
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
