#pragma once

#include "core/common/mapped_file.h"

#include <memory>
#include <string>
#include <vector>

namespace gapscope {

// Which file is an ETDump's debug buffer. The buffer has no header, so it is
// told by elimination (every file recognised as something else is out, see
// FileKind) and then by who named it:
//   1. the one raw file the user named one by one (an argument, File → Open, a
//      drop), over files found in a folder they named;
//   2. the one sharing the ETDump's stem (run.etdp → run.debug.bin);
//   3. the one under a name ExecuTorch's tutorials and runners use
//      (debug_buffer.bin, debug_output.bin);
//   4. the only raw file.
// Where several remain, none is guessed: they are the candidates, for the user
// to pick from (the app's banner; the CLI's --debug-buffer).
struct DebugBufferChoice {
    std::shared_ptr<const MappedFile> file;
    std::vector<std::string> candidates; // paths, when several remained and none was chosen
};

// `raw`: the files of kind Raw, in input order; `named`: the paths the user named.
DebugBufferChoice chooseDebugBuffer(const std::string& etdumpPath,
                                    const std::vector<std::shared_ptr<const MappedFile>>& raw,
                                    const std::vector<std::string>& named);

// The names ExecuTorch's examples give a debug buffer beside etdump.etdp.
const std::vector<std::string>& executorchDebugBufferNames();

} // namespace gapscope
