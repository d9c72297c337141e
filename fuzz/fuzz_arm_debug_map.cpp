// libFuzzer target: the Arm backend's debug entries and the TOSA run that
// holds them (issue 61), mutated as JSON (fuzz/json_mutator.h). An input that
// starts with '[' is a list of the entries ExecuTorch's Arm backend puts in
// each TOSA op's location (core/backends/arm_debug_map.h), from the committed
// sessions' own: entries without tosa_info, traces that are neither lists nor
// the schema's note, names given twice. One that starts with '{' is a TOSA
// run's document (core/backends/tosa_run.h) in a file holding the committed
// Ethos-U run's tensors (two delegates): ops naming tensors that are not
// there, permutations that are not ones, shapes, inputs, debug entries and
// call sides that disagree. A refusal always says why; a map that reads names
// each TOSA tensor once; a run that reads gives each op a layout that is a
// permutation of its axes, or none, tensors inside the file, and boundaries
// whose every side is said.
#include "core/backends/arm_debug_map.h"
#include "core/backends/arm_layout.h"
#include "core/backends/arm_partitions.h"
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
    std::vector<std::pair<const TosaRun*, std::int32_t>> calls;
    for (const TosaRun& delegate : run.value().delegates) {
        const auto orders = tosaAxisOrders(delegate);
        if (orders.size() != delegate.ops.size())
            __builtin_trap();
        for (std::size_t k = 0; k < orders.size(); ++k) {
            if (!orders[k])
                continue;
            std::vector<std::int64_t> sorted = *orders[k], axes(sorted.size());
            std::sort(sorted.begin(), sorted.end());
            std::iota(axes.begin(), axes.end(), 0);
            if (sorted != axes || sorted.size() != delegate.ops[k].shape.size())
                __builtin_trap(); // a layout is a permutation of the op's axes
        }
        calls.emplace_back(&delegate, static_cast<std::int32_t>(calls.size() + 1));
    }
    const EtDump dump = armRunEtDump(calls);
    for (const auto& e : dump.runs.front().events)
        for (const auto& t : std::get<DebugEvent>(e).debug_entry->tensors)
            if (dump.tensorBytes(t).size != static_cast<std::size_t>(*t.nbytes))
                __builtin_trap(); // every tensor is read whole, from inside the file
    const ArmPartitions partitions = armPartitions(run.value());
    std::size_t sides = 0;
    for (const TosaRun& delegate : run.value().delegates)
        sides += delegate.graph_inputs.size() + delegate.graph_outputs.size();
    if (partitions.boundaries.size() != sides || armPartitionNote(partitions, "EthosUBackend").empty())
        __builtin_trap(); // every boundary is said
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
