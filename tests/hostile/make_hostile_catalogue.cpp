// Writes the bogus-input catalogue as case folders for the CLI test
// (run_hostile_catalogue.sh): OUT/<id>/ holds the demo's four files with one
// made hostile, OUT/manifest.tsv one line per case: id, expected stderr line
// (after "gapscope-cli compare: "), exit status, the gapscope-cli arguments
// (space-separated, relative to the case folder).
// usage: make_hostile_catalogue DEMO_DIR OUT_DIR [--outcomes]
//   --outcomes prints what the core says of each case instead (to pin them).
#include "hostile_catalogue.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

using namespace gapscope::test;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s DEMO_DIR OUT_DIR [--outcomes]\n", argv[0]);
        return 2;
    }
    const std::string demo = argv[1];
    const std::string out = argv[2];
    const bool outcomes = argc > 3 && std::strcmp(argv[3], "--outcomes") == 0;
    std::error_code ec;
    if (std::filesystem::exists(out, ec)) {
        std::fprintf(stderr, "%s exists; the catalogue is written into a new folder\n", out.c_str());
        return 1;
    }
    std::filesystem::create_directories(out, ec);
    std::ofstream manifest(out + "/manifest.tsv");
    const auto cases = hostileCatalogue(demo);
    for (const auto& c : cases) {
        const std::string dir = out + "/" + c.id;
        if (const auto problem = materialiseCase(c, demo, dir); !problem.empty()) {
            std::fprintf(stderr, "%s: %s\n", c.id.c_str(), problem.c_str());
            return 1;
        }
        if (outcomes) {
            std::cout << c.id << "\t" << coreOutcome(c, dir) << "\n";
            continue;
        }
        // A tab is whitespace to `read`: an empty field would vanish, so a report case
        // (which expects no message) writes "-".
        manifest << c.id << '\t' << (c.warning ? "warning: " : "") << (c.report ? "-" : c.expected) << '\t'
                 << (c.warning || c.report ? 0 : 1) << '\t';
        const auto args = cliArguments(c);
        for (std::size_t i = 0; i < args.size(); ++i)
            manifest << (i ? " " : "") << args[i];
        manifest << '\t' << (c.report ? "report" : "message") << '\n';
    }
    std::fprintf(stderr, "%zu cases written to %s\n", cases.size(), out.c_str());
    return manifest ? 0 : 1;
}
