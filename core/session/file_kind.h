#pragma once

#include "core/common/byte_span.h"

#include <optional>
#include <string>

namespace gapscope {

// What a file is, told from its content (never its name). ExecuTorch's own
// folders hold more than a session's inputs (model.pte, inputs.pt): each is
// recognised, so that only unrecognised bytes can be taken for a debug buffer,
// which has no header of its own.
enum class FileKind {
    EtDump,       // FlatBuffer identifier ED00
    EtRecord,     // a ZIP (confirmed by its ETRECORD_V0 entry when the reader opens it)
    Capture,      // safetensors with Gapscope's metadata
    Program,      // an ExecuTorch program (.pte, identifier ET12) or bundled program (BP08)
    TorchArchive, // torch.save / torch.export.save: a ZIP holding data.pkl (inputs.pt, model.pt2)
    BackendRun,   // safetensors with a backend's own run (a TOSA run): read in the ETDump's place
    SavedSession, // text holding the "gapscope_session" key in its first MiB (session_document.h)
    Text,         // JSON, CSV, logs, scripts: printable text
    Other,        // a known format that is no session input (PNG, PDF, ELF, gzip, a plain safetensors)
    Raw,          // none of the above: a debug buffer candidate
};
const char* fileKindName(FileKind kind);
// A record of the run a session compares: an ETDump, or a backend's own run
// in its place. Opened alone, it starts a session with the files beside it.
bool recordsARun(FileKind kind);
FileKind detectFileKind(ByteSpan bytes);
// The kind of the file at `path` (mapped, never blocking on a FIFO or device);
// none when it cannot be opened.
std::optional<FileKind> fileKindAt(const std::string& path);

} // namespace gapscope
