#include "core/backends/backend_run.h"

#include "core/backends/arm_delegate_map.h"
#include "core/backends/arm_partitions.h"
#include "core/backends/arm_run_events.h"
#include "core/backends/tosa_run.h"

namespace gapscope {

bool isBackendRunHeader(std::string_view header) {
    return header.find(kTosaRunMetadataKey) != std::string_view::npos;
}

Result<BackendRun> openBackendRun(const std::shared_ptr<const MappedFile>& file, const EtRecord& etrecord,
                                  const AotCapture& capture, const AotCapture* naming,
                                  const std::string& method) {
    auto read = readTosaRun(file);
    if (!read)
        return read.error();
    const std::vector<TosaRun>& runs = read.value().delegates;
    const std::string path = file->path();

    // The method's Arm delegate calls in instruction order, which is call order
    // in ExecuTorch's plan: the k-th is the run's k-th (the TOSA runs were
    // written in call order; delegation tags do not follow it).
    const MethodMaps* maps = etrecord.maps(method);
    std::vector<std::int64_t> calls;
    if (maps)
        for (const auto& [instruction, delegate] : maps->delegate_map)
            if (delegate.backend == kArmTosaBackend || delegate.backend == kArmEthosUBackend)
                calls.push_back(instruction);
    if (calls.size() != runs.size())
        return makeError(ErrorCode::Unsupported,
                         "the ETRecord's method '" + method + "' calls " + std::to_string(calls.size()) +
                             " Arm delegates (" + kArmTosaBackend + ", " + kArmEthosUBackend +
                             "), and the TOSA run holds " + std::to_string(runs.size()) +
                             ": it is a run of another program",
                         etrecord.path, "delegate_map");
    for (std::size_t k = 0; k < runs.size(); ++k)
        if (maps->delegate_map.at(calls[k]).backend != runs[k].backend)
            return makeError(
                ErrorCode::Unsupported,
                "delegate call " + std::to_string(k) + " (instruction " + std::to_string(calls[k]) + ") is " +
                    maps->delegate_map.at(calls[k]).backend + " in the ETRecord, " + runs[k].backend +
                    " in the TOSA run: it is a run of another program",
                path, std::string(kTosaRunMetadataKey) + ".delegates[" + std::to_string(k) + "].backend");
    const ExportGraph* graph =
        etrecord.exported_program ? &*etrecord.exported_program : etrecord.edgeProgram(method);

    auto patched = std::make_shared<EtRecord>(etrecord);
    auto laid = std::make_shared<AotCapture>(capture);
    std::vector<std::string> groups;
    std::vector<std::pair<std::string, std::string>> unmapped;
    std::vector<std::pair<const TosaRun*, std::int32_t>> events;
    std::size_t ops = 0;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const auto handles = maps->debug_handle_map.find(calls[k]);
        ArmDelegateMap arm = armDelegateMap(
            runs[k], capture, graph,
            handles == maps->debug_handle_map.end() ? nullptr : &handles->second.handles, naming);
        patched->methods[method].delegate_map[calls[k]] = arm.mapping;
        for (const auto& [r, order] : arm.axis_orders)
            laid->records[r].axis_order = order;
        for (const auto& [r, problem] : arm.runtime_problems)
            laid->records[r].runtime_problem = problem;
        // With several delegates, each op is said with its delegate's (two
        // graphs name their tensors alike).
        const std::string which = runs.size() > 1 ? "delegate " + std::to_string(k) + ": " : "";
        for (auto& note : arm.notes)
            groups.push_back(which + note);
        for (auto& [op, why] : arm.unmapped)
            unmapped.emplace_back(which + op, why);
        events.emplace_back(&runs[k], static_cast<std::int32_t>(calls[k]));
        ops += runs[k].ops.size();
    }

    BackendRun out;
    out.dump = std::make_shared<EtDump>(armRunEtDump(events));
    out.etrecord = std::move(patched);
    out.capture = std::move(laid);
    // Said in a few lines: a transformer block has eight such groups, and the
    // notes stand above the table. Every row of a group is in Coverage too.
    constexpr std::size_t kShown = 3;
    if (groups.size() <= kShown) {
        out.notes = std::move(groups);
    } else {
        std::string list;
        for (std::size_t i = 0; i < kShown; ++i)
            list += "\n  " + groups[i];
        out.notes.push_back(std::to_string(groups.size()) +
                            " groups of rows are compared as one, where the TOSA graph does not follow the "
                            "reference's:" +
                            list + "\n  … and " + std::to_string(groups.size() - kShown) +
                            " more (each row of a group is in Coverage, as fused)");
    }
    if (!unmapped.empty()) {
        std::string list;
        for (std::size_t i = 0; i < unmapped.size() && i < kShown; ++i)
            list += "\n  " + unmapped[i].first + ": " + unmapped[i].second;
        if (unmapped.size() > kShown)
            list += "\n  … and " + std::to_string(unmapped.size() - kShown) + " more";
        out.notes.push_back(std::to_string(unmapped.size()) + " of the TOSA run's " + std::to_string(ops) +
                            " ops belong to no row:" + list);
    }
    // Where the delegates meet the CPU: said for every Arm program (the input
    // quantize and the output dequantize stand outside even one delegate), and
    // a boundary whose two sides disagree on the dtype is a warning.
    const ArmPartitions partitions = armPartitions(read.value());
    out.notes.push_back(armPartitionNote(partitions, runs.front().backend));
    out.warnings = armBoundaryFindings(partitions);
    return out;
}

} // namespace gapscope
