#include "app/cli/inspect_commands.h"

#include "core/capture/aot_capture.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/report/inputs_json.h"
#include "core/report/json_text.h"

#include <iostream>
#include <memory>

namespace gapscope::cli {

void addInspectCommands(CLI::App& app, int& exitCode) {
    auto etrecordPath = std::make_shared<std::string>();
    auto* etrecord = app.add_subcommand("etrecord", "Print what Gapscope reads from an ETRecord, as JSON");
    etrecord->add_option("etrecord", *etrecordPath, "ETRecord zip")->required();
    etrecord->callback([etrecordPath, &exitCode] {
        auto r = loadEtRecord(*etrecordPath);
        if (!r) {
            std::cerr << "gapscope-cli etrecord: " << r.error().describe() << '\n';
            exitCode = 1;
            return;
        }
        const auto json = renderJson(etrecordToJson(r.value()));
        if (json.replaced)
            std::cerr << "gapscope-cli etrecord: warning: " << invalidUtf8Warning(*etrecordPath) << '\n';
        std::cout << json.text << '\n';
    });

    auto capturePath = std::make_shared<std::string>();
    auto* capture = app.add_subcommand("capture", "Print the records of an AOT capture, as JSON");
    capture->add_option("capture", *capturePath, "AOT capture (.gscap.safetensors)")->required();
    capture->callback([capturePath, &exitCode] {
        auto r = loadAotCapture(*capturePath);
        if (!r) {
            std::cerr << "gapscope-cli capture: " << r.error().describe() << '\n';
            exitCode = 1;
            return;
        }
        const auto json = renderJson(captureToJson(r.value()));
        if (json.replaced)
            std::cerr << "gapscope-cli capture: warning: " << invalidUtf8Warning(*capturePath) << '\n';
        std::cout << json.text << '\n';
    });
}

} // namespace gapscope::cli
