#include "app/cli/compare_command.h"
#include "app/cli/dump_command.h"
#include "app/cli/inspect_commands.h"

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
    CLI::App app{"gapscope-cli: inspect ExecuTorch numerical-debugging artifacts"};
    app.require_subcommand(1);
    int exitCode = 0;
    gapscope::cli::addDumpCommand(app, exitCode);
    gapscope::cli::addInspectCommands(app, exitCode);
    gapscope::cli::addCompareCommand(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    return exitCode;
}
