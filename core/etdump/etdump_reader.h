#pragma once

#include "core/common/byte_span.h"
#include "core/common/mapped_file.h"
#include "core/common/progress.h"
#include "core/common/result.h"
#include "core/etdump/etdump_model.h"

#include <memory>
#include <optional>
#include <string>

namespace gapscope {

struct EtdumpReadOptions {
    // Used in messages; the file's path when reading from disk.
    std::string name = "<etdump>";
    // Tensors are resolved against this buffer; null = metadata only.
    std::shared_ptr<const MappedFile> debug_buffer;
    // Reports events converted out of events in the file; false cancels.
    ProgressFn progress;
};

// Bytes in, EtDump (with typed warnings) or a located Error out. Accepts the
// size-prefixed layout ExecuTorch writes and the bare FlatBuffer layout of other
// producers. Never reads outside `bytes`; the bytes need not outlive the result.
Result<EtDump> parseEtdump(ByteSpan bytes, const EtdumpReadOptions& options);

// Maps the file read-only and parses it; the debug buffer, if given, is mapped
// read-only too and kept alive by the result.
Result<EtDump> loadEtdump(const std::string& etdumpPath, const std::optional<std::string>& debugBufferPath,
                          ProgressFn progress = {});

} // namespace gapscope
