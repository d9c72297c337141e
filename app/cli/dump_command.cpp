#include "app/cli/dump_command.h"

#include "core/etdump/etdump_reader.h"
#include "core/report/etdump_json.h"
#include "core/report/etdump_text.h"
#include "core/report/json_text.h"

#include <iostream>
#include <memory>
#include <optional>
#include <string>

namespace gapscope::cli {

namespace {
struct DumpOptions {
    std::string etdump;
    std::string debugBuffer;
    bool json = false;
};

int runDump(const DumpOptions& o) {
    std::optional<std::string> buffer;
    if (!o.debugBuffer.empty())
        buffer = o.debugBuffer;
    auto dump = loadEtdump(o.etdump, buffer);
    if (!dump) {
        std::cerr << "gapscope-cli dump: " << dump.error().describe() << '\n';
        return 1;
    }
    if (o.json) {
        const auto json = renderJson(etdumpToJson(dump.value()));
        if (json.replaced)
            std::cerr << "gapscope-cli dump: warning: " << invalidUtf8Warning(o.etdump) << '\n';
        std::cout << json.text << '\n';
    } else
        writeEtdumpText(std::cout, dump.value());
    return 0;
}
} // namespace

void addDumpCommand(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<DumpOptions>();
    auto* cmd = app.add_subcommand("dump", "Print every run and event of an ExecuTorch ETDump (.etdp)");
    cmd->add_option("etdump", options->etdump, "ETDump file written by the runtime")->required();
    cmd->add_option("--debug-buffer", options->debugBuffer,
                    "Debug buffer with the tensor bytes; without it tensors are metadata only");
    cmd->add_flag("--json", options->json, "Print one JSON document instead of text");
    cmd->callback([options, &exitCode] { exitCode = runDump(*options); });
}

} // namespace gapscope::cli
