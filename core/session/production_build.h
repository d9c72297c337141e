#pragma once

#include "core/common/result.h"
#include "core/compare/production_check.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <memory>
#include <string>

namespace gapscope {

struct Session;

// The production build beside a tapped session (issue 58): its ETRecord, and
// its run when the folder holds one (an ETDump and its debug buffer), read
// read-only as any session's inputs.
struct ProductionBuild {
    std::string path; // as given
    std::shared_ptr<const EtRecord> etrecord;
    std::shared_ptr<const EtDump> dump; // null without a run
};

// `path`: the production ETRecord, or a folder holding it (and its ETDump and
// debug buffer). An error names the file and what is missing or wrong.
Result<ProductionBuild> loadProductionBuild(const std::string& path);

// The check of a tapped session against it (checkProduction), the session's
// method and run against the production run of the same index.
Result<ProductionCheck> checkAgainstProduction(const Session& tapped, const ProductionBuild& production);

} // namespace gapscope
