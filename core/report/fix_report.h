#pragma once

#include "core/common/mapped_file.h"
#include "core/common/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// What `gapscope-capture fix` found (issue 59, fix.json beside its fixed/
// session): the baseline, each candidate's verified run, the search and the
// best configuration with its snippet. Read for the app's Stages tab; every
// number is the exporter's, of a program it lowered and ran.
struct FixTrial {
    std::vector<std::string> keep_float;
    std::optional<double> output_snr_db; // +inf for an identical output
    std::optional<double> top1;
    std::uint64_t size_bytes = 0;
    std::int64_t ops_outside_delegates = 0;
    std::optional<double> latency_ms;
    std::string error; // empty: it ran
};

struct FixCandidate {
    std::string module, why;
    std::optional<double> recovered_db;
    std::optional<FixTrial> trial; // none: not run (the budget ran out)
};

struct FixReport {
    std::string path; // fix.json as read
    std::string recipe, target, stopped, snippet;
    bool met = false;
    FixTrial baseline;
    std::optional<FixTrial> best;
    std::vector<FixCandidate> candidates;
    std::vector<FixTrial> search;
    // The verified run of the best configuration, as a session folder (absolute),
    // and its output SNR as the exporter measured it. Empty when not written.
    std::string fixed_session;
    std::optional<double> fixed_output_snr_db;
};

// Reads fix.json: a JSON object of at most 64 MiB, nested no deeper than
// kMaxJsonDepth; an error names the file and the field at fault. fixed_session
// is resolved against the report's folder and must stay inside it.
// Bytes in: `text` as read from `path` (which names the file in errors and
// anchors fixed_session).
Result<FixReport> parseFixReport(std::string_view text, const std::string& path);
Result<FixReport> readFixReport(const MappedFile& file);
Result<FixReport> loadFixReport(const std::string& path);

// fix/fix.json in `folder`, when it is a regular file (a session folder
// `gapscope-capture fix -o SESSION/fix` wrote into); empty otherwise.
std::string fixReportBeside(const std::string& folder);

} // namespace gapscope
