#pragma once

#include "core/common/mapped_file.h"
#include "core/common/result.h"
#include "core/runs/run_summary.h"

#include <memory>
#include <vector>

namespace gapscope {

// Reads a saved JSON report (`gapscope-cli compare --json`, docs/cli.md) back
// into what a comparison of runs needs, without its input files: `gapscope-cli
// diff` and `--baseline`. Reads schema versions 1 (reports before versions were
// written: no code locations, no reference-program digest, so rows pair by op
// and order) to kReportSchemaVersion; refuses a newer one, and anything that
// is not a report, with the field or byte at fault.
struct SavedReport {
    int schema_version = 1;
    // One run, or one per execution of an --all-runs report (in its order).
    std::vector<RunSummary> runs;
    bool all_runs = false;
};

Result<SavedReport> readSavedReport(const MappedFile& file);
// Reads the report at `path` and protects it from this process's outputs
// (registerInput): a report read is an input, never replaced by one written.
Result<SavedReport> loadSavedReport(const std::string& path);

} // namespace gapscope
