#pragma once

#include <string>
#include <vector>

namespace gapscope::test {

// The bogus-input catalogue (issue 14, docs/robustness.md): every format, special
// files and output paths, each a case folder holding the demo session's four
// files with one of them replaced, or with a hostile output path. The same cases
// run through the core (hostile_catalogue_tests.cpp, each message pinned), the CLI
// under ASan + UBSan (run_hostile_catalogue.sh) and the app (tst_hostile_files).

enum class HostileRole { EtDump, DebugBuffer, EtRecord, Capture, Output };

enum class HostileSpecial {
    None,             // `bytes` replace the file
    Fifo,             // the file is a FIFO (open() would block forever)
    Directory,        // the file is a directory
    SymlinkToFifo,    // the file is a symbolic link to a FIFO
    Missing,          // the file does not exist
    DanglingSymlink,  // a symbolic link to nothing
    SymlinkToNewFile, // output: a symbolic link to a file outside the outputs
    HardLinkToInput,  // output: a hard link to the ETRecord
    InputReport,      // output: a saved report the command reads (--baseline), issue 55 class 1
    SymlinkToFolder,  // output: a symbolic link to a folder elsewhere (issue 55, class 7)
};

struct HostileCase {
    std::string id;    // also the case folder's name
    HostileRole role;  // which file (or the output) is hostile
    std::string bytes; // the file's content, for HostileSpecial::None
    HostileSpecial special = HostileSpecial::None;
    std::string outputFlag; // output cases: --csv or --json
    std::string outputPath; // output cases: relative to the case folder
    std::string expected;   // the exact located message; paths relative to the case folder
    // A warning, not an error: the CLI prints "warning: <expected>" and goes on
    // (exit 0), the app shows it in the warning banner. An ETRecord graph the
    // reader cannot use does not sink the maps that alignment needs.
    bool warning = false;
    // A report case: op names in the capture written to attack whoever reads the
    // reports (a spreadsheet formula, HTML, a terminal escape sequence). Nothing
    // is wrong with the session: the CLI exits 0, says nothing about the file, and
    // writes --csv out.csv and --markdown out.md; what is checked is that the
    // names reach the table, the CSV and the Markdown only as text.
    bool report = false;
    // Where the app, which tells files by content rather than by the CLI's
    // flags, says it otherwise: the words its banner must hold.
    std::string appExpected;
};

// The four input files of a case folder, by role.
const char* hostileFileName(HostileRole role);

// The catalogue, built from the committed demo session in `demoDir`.
std::vector<HostileCase> hostileCatalogue(const std::string& demoDir);

// Writes the case folder `dir` (created; must not exist): the demo's four files
// with the case's one replaced or made special. Returns "" or what failed.
std::string materialiseCase(const HostileCase& c, const std::string& demoDir, const std::string& dir);

// What the core says about the case folder, the way gapscope-cli compare reads
// it (each input mapped, the session loaded, the output written atomically): the
// first error's describe(), else the first comparison warning about the case's
// file, with "dir/" cut from paths; "" when nothing was said.
std::string coreOutcome(const HostileCase& c, const std::string& dir);

// The gapscope-cli compare arguments for the case, relative to its folder.
std::vector<std::string> cliArguments(const HostileCase& c);

} // namespace gapscope::test
