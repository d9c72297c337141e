#pragma once

#include "core/compare/metric_catalog.h"
#include "core/report/report_reader.h"
#include "core/runs/run_summary.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gapscope::cli {

// `gapscope-cli diff A.json B.json`: two saved reports compared without their
// input files. Exit codes: 0 fine, 1 a report could not be read or an output
// written, 2 bad command line, 3 a --fail-if-worse margin was exceeded.
void addDiffCommand(CLI::App& app, int& exitCode);

// `compare --baseline OLD.json --fail-if-worse snr=3`: the runs just compared
// (one, or every execution with --all-runs) against a saved report, rows
// paired as `diff` pairs them. `old` is read (loadSavedReport) before the
// comparison, so that no output of it can replace the baseline. Says each
// regression on stderr; returns how many (-1 when the baseline does not fit:
// said on stderr).
int checkBaseline(const std::vector<RunSummary>& current, bool allRuns, const SavedReport& old,
                  const std::string& baselinePath, const std::vector<MetricThreshold>& margins);

// "snr=3" → a margin in the metric's unit (0 or more); false with a message otherwise.
bool parseMargins(const std::vector<std::string>& texts, std::vector<MetricThreshold>& out,
                  std::string& error);

} // namespace gapscope::cli
