#pragma once

#include "core/common/atomic_file_writer.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gapscope::cli {

// Writes a report the user asked for (--csv, --json, --markdown) atomically;
// nothing for an empty path; "-" writes it to standard output. The error
// message, or nothing.
std::optional<std::string> writeOutput(const std::string& path, const std::string& text);

// A report written piece by piece (a 200,000-row diff, 20,000 runs): to
// standard output for "-", else atomically (AtomicFileWriter): the file
// appears whole at finish() and never otherwise. Nothing for an empty path.
class StreamedOutput {
public:
    explicit StreamedOutput(const std::string& path);
    bool wanted() const { return !path_.empty(); }
    void write(std::string_view text);
    // The error message, or nothing.
    std::optional<std::string> finish();

private:
    std::string path_;
    std::unique_ptr<AtomicFileWriter> file_;
};

// The outputs a command was given, as (option, path): refused when two name
// the same file (by path, or by the file an existing one is: a hard link, a
// symbolic link), or when more than one is standard output ("-"), or when "-"
// is given to an option that writes a folder. The message, or nothing.
std::optional<std::string> checkOutputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                                        const std::vector<std::string>& folders = {});
// Every file output checked against the inputs this process has read so far
// (and against special files), before any work is done: the same rule
// writeFileAtomically applies when it writes, said up front, so that an output
// naming an input (`--json` onto the `--baseline` report, `diff A.json B.json
// --json A.json`) is refused before anything is computed. Folder outputs are
// checked entry by entry when written. Call it once every input is read or
// protected. The message, or nothing.
std::optional<std::string>
refuseOutputsOverInputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::string>& folders = {});
// Some output goes to standard output: the text table must not.
bool writesToStdout(const std::vector<std::pair<std::string, std::string>>& outputs);

} // namespace gapscope::cli
