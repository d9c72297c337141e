#include "app/cli/compare_command.h"
#include "app/cli/diff_command.h"
#include "app/cli/dump_command.h"
#include "app/cli/inspect_commands.h"
#include "app/cli/profile_command.h"
#include "app/cli/terminal_guard.h"
#include "core/common/allocator_tuning.h"
#include "core/report/version_info.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string>

int main(int argc, char** argv) {
    gapscope::tuneAllocator(); // as the app: the same allocator settings for the same work
    // No escape sequence from an input reaches the terminal; no message floods it.
    gapscope::cli::TerminalGuard guardOut(std::cout, 0);
    gapscope::cli::TerminalGuard guardErr(std::cerr, 4096);
    CLI::App app{"gapscope-cli: inspect ExecuTorch numerical-debugging artifacts", "gapscope-cli"};
    std::string version = gapscope::versionText("gapscope-cli", "");
    version.pop_back(); // CLI11 ends the text with its own newline
    app.set_version_flag("--version", version,
                         "Print the versions of gapscope-cli, the ExecuTorch formats it reads, Qt and the "
                         "exporter, and exit");
    app.footer("Run 'gapscope-cli COMMAND --help' for a command's options; docs/cli.md has examples.");
    app.require_subcommand(1);
    int exitCode = 0;
    gapscope::cli::addDumpCommand(app, exitCode);
    gapscope::cli::addInspectCommands(app, exitCode);
    gapscope::cli::addCompareCommand(app, exitCode);
    gapscope::cli::addDiffCommand(app, exitCode);
    gapscope::cli::addProfileCommand(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    } catch (const std::bad_alloc&) {
        // Under a memory limit (ulimit -v) a command that outgrows it ends with a
        // message and status 1, not an abort (issue 55, class 8). Outputs are
        // written atomically: none is left half-written.
        std::cerr << "gapscope-cli: out of memory: the inputs need more memory than this process may use; "
                     "no output was written in part\n";
        return 1;
    }
    return exitCode;
}
