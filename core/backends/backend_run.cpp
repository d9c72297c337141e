#include "core/backends/backend_run.h"

#include "core/backends/arm_debug_map.h"
#include "core/backends/arm_delegate_map.h"
#include "core/backends/arm_run_events.h"
#include "core/backends/tosa_run.h"
#include "core/common/sha256.h"

#include <filesystem>

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
    const TosaRun& run = read.value();
    const std::string path = file->path();
    if (run.debug_json_name.empty())
        return makeError(ErrorCode::Unsupported,
                         "the TOSA run names no debug.json: without the Arm backend's map of its ops "
                         "(TosaCompileSpec.dump_debug_info(DebugMode.JSON)) no op can be tied to a node; "
                         "write it with TosaRun.write(..., debug_json=...)",
                         path, std::string(kTosaRunMetadataKey) + ".debug_json");
    // Where the run says it lies, from the run's folder; a name alone, beside it.
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    const std::string where =
        (folder / (run.debug_json_path.empty() ? run.debug_json_name : run.debug_json_path))
            .lexically_normal()
            .string();
    auto debugFile = MappedFile::open(where);
    if (!debugFile)
        return makeError(ErrorCode::Io,
                         "the Arm backend's debug.json it names is not at " + where + " (" +
                             debugFile.error().message + ")",
                         path, std::string(kTosaRunMetadataKey) + ".debug_json.path");
    if (sha256Hex(*debugFile.value()) != run.debug_json_sha256)
        return makeError(ErrorCode::Unsupported,
                         where + " is not the debug.json this run was written with (its SHA-256 differs): "
                                 "it is of another lowering, and would tie ops to the wrong nodes",
                         path, std::string(kTosaRunMetadataKey) + ".debug_json.sha256");
    const ByteSpan bytes = debugFile.value()->bytes();
    auto debug =
        readArmDebugMap(std::string_view(reinterpret_cast<const char*>(bytes.data), bytes.size), where);
    if (!debug)
        return debug.error();

    // The one TOSA delegate call of the method.
    const MethodMaps* maps = etrecord.maps(method);
    std::vector<std::int64_t> calls;
    if (maps)
        for (const auto& [instruction, delegate] : maps->delegate_map)
            if (delegate.backend == kArmTosaBackend)
                calls.push_back(instruction);
    if (calls.size() != 1)
        return makeError(ErrorCode::Unsupported,
                         calls.empty() ? "the ETRecord's method '" + method + "' has no " + kArmTosaBackend +
                                             " delegate, so this TOSA run is of another program"
                                       : "the ETRecord's method '" + method + "' calls " +
                                             std::to_string(calls.size()) +
                                             " TOSA delegates, and a TOSA run "
                                             "is of one; which one this is cannot be told (not read yet)",
                         etrecord.path, "delegate_map");
    const std::int64_t instruction = calls.front();
    const auto handles = maps->debug_handle_map.find(instruction);
    const ExportGraph* graph =
        etrecord.exported_program ? &*etrecord.exported_program : etrecord.edgeProgram(method);
    ArmDelegateMap arm =
        armDelegateMap(debug.value(), run, capture, graph,
                       handles == maps->debug_handle_map.end() ? nullptr : &handles->second.handles, naming);

    auto patched = std::make_shared<EtRecord>(etrecord);
    patched->methods[method].delegate_map[instruction] = arm.mapping;
    auto laid = std::make_shared<AotCapture>(capture);
    for (const auto& [r, order] : arm.axis_orders)
        laid->records[r].axis_order = order;
    for (const auto& [r, problem] : arm.runtime_problems)
        laid->records[r].runtime_problem = problem;

    BackendRun out;
    out.dump = std::make_shared<EtDump>(armRunEtDump(run, static_cast<std::int32_t>(instruction)));
    out.etrecord = std::move(patched);
    out.capture = std::move(laid);
    // Said in a few lines: a transformer block has eight such groups, and the
    // notes stand above the table. Every row of a group is in Coverage too.
    constexpr std::size_t kShown = 3;
    if (arm.notes.size() <= kShown) {
        out.notes = std::move(arm.notes);
    } else {
        std::string list;
        for (std::size_t i = 0; i < kShown; ++i)
            list += "\n  " + arm.notes[i];
        out.notes.push_back(std::to_string(arm.notes.size()) +
                            " groups of rows are compared as one, where the TOSA graph does not follow the "
                            "reference's:" +
                            list + "\n  … and " + std::to_string(arm.notes.size() - kShown) +
                            " more (each row of a group is in Coverage, as fused)");
    }
    if (!arm.unmapped.empty()) {
        std::string list;
        for (std::size_t i = 0; i < arm.unmapped.size() && i < kShown; ++i)
            list += "\n  " + arm.unmapped[i].first + ": " + arm.unmapped[i].second;
        if (arm.unmapped.size() > kShown)
            list += "\n  … and " + std::to_string(arm.unmapped.size() - kShown) + " more";
        out.notes.push_back(std::to_string(arm.unmapped.size()) + " of the TOSA run's " +
                            std::to_string(run.ops.size()) + " ops belong to no row:" + list);
    }
    return out;
}

} // namespace gapscope
