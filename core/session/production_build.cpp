#include "core/session/production_build.h"

#include "core/common/file_safety.h"
#include "core/compare/tap_rows.h"
#include "core/session/session.h"
#include "core/session/workspace.h"

#include <filesystem>

namespace gapscope {

Result<ProductionBuild> loadProductionBuild(const std::string& path) {
    // A device node or a FIFO is never opened (a folder is searched).
    if (std::filesystem::exists(path) && !std::filesystem::is_directory(path))
        if (auto why = refuseNonRegularInput(path))
            return *why;
    std::vector<Error> errors;
    const SessionInputs inputs = sessionInputsFromPaths({path}, errors);
    if (!errors.empty())
        return errors.front();
    // What the sort parses (the ETDump, to tell the files apart) is kept and reused.
    Workspace workspace;
    const SessionFiles files = sortSessionFiles(inputs, {}, {}, {}, &workspace);
    protectInputs(files); // never an output's path (issue 55, class 1)
    if (!files.etrecord)
        return makeError(
            ErrorCode::Unsupported,
            "no ETRecord of the production build here: give its etrecord.bin, or the folder holding "
            "it (and its run.etdp and debug buffer to compare the outputs)",
            path);
    ProductionBuild out;
    out.path = path;
    auto record = workspace.etrecord(files.etrecord);
    if (!record)
        return record.error();
    out.etrecord = record.value();
    if (files.etdump) {
        auto dump = workspace.etdump(files.etdump, files.debug_buffer, {});
        if (!dump)
            return dump.error();
        out.dump = dump.value();
    }
    return out;
}

Result<ProductionCheck> checkAgainstProduction(const Session& tapped, const ProductionBuild& production) {
    if (!tapped.etrecord || !tapped.comparison)
        return makeError(ErrorCode::Unsupported,
                         "checking against the production build needs the tapped session's ETRecord and "
                         "its comparison",
                         production.path);
    const Comparison& c = *tapped.comparison;
    const auto taps = tapped.capture ? tappedOutputs(*tapped.capture) : std::set<std::size_t>{};
    return checkProduction(*tapped.etrecord, *production.etrecord, c.method, tapped.dump.get(), c.run,
                           production.dump.get(), c.run, taps);
}

} // namespace gapscope
