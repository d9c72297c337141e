#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/common/result.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/etrecord/export_graph.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// A backend's own record of one run of a delegate, read where ExecuTorch's
// ETDump and debug buffer stand when the delegate does not run in ExecuTorch's
// runtime (issue 61; docs/arm.md). Today one kind: a TOSA run
// (tosa_run.safetensors, docs/formats/tosa-run.md) of a program's Arm
// delegate calls (TOSABackend, or EthosUBackend run as the TOSA graph Vela
// compiled), holding each op's debug entry. The session opens it as it opens
// an ETDump, and everything after (alignment, metrics, views, reports, A/B)
// reads what this returns as it reads any session: the seam between a backend
// and the rest of Gapscope is this one call.
struct BackendRun {
    // The run as the delegates' debug events would be: one execution, each
    // op's tensor read in place from the run's file (its debug buffer), on
    // its delegate call's instruction.
    std::shared_ptr<const EtDump> dump;
    // The ETRecord given, with the maps the delegates left empty filled.
    std::shared_ptr<const EtRecord> etrecord;
    // The capture given, with each row's runtime layout (axis_order) where the
    // backend holds it otherwise, or why its tensor cannot be compared.
    std::shared_ptr<const AotCapture> capture;
    // What the comparison should say beside its rows: rows compared as one and
    // why, ops that belong to no row, where the delegates meet the CPU.
    std::vector<std::string> notes;
    // What the comparison should warn of: what the backend's own record shows
    // wrong that no row's numbers say (a partition boundary's dtypes).
    std::vector<std::string> warnings;
};

// Whether a safetensors header's text is a backend run's (FileKind).
bool isBackendRunHeader(std::string_view header);

// Reads `run` and ties its k-th delegate call to `etrecord`'s k-th Arm
// delegate instruction of `method` and to `capture`'s rows, through the ETRecord's
// exported program (the graph the Arm backend's traces name, whose debug
// handles key the capture; its Edge program when it has none). `naming`: a
// capture of that graph among those offered, when `capture` is another
// model's (armDelegateMap). Every refusal names the file and what is wrong:
// a run of another number of calls than the ETRecord's, or a call of another
// backend.
Result<BackendRun> openBackendRun(const std::shared_ptr<const MappedFile>& run, const EtRecord& etrecord,
                                  const AotCapture& capture, const AotCapture* naming,
                                  const std::string& method);

} // namespace gapscope
