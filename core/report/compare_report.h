#pragma once

#include "core/compare/comparison.h"
#include "core/compare/findings.h"
#include "core/report/version_info.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gapscope {

struct InputProvenance {
    std::string role; // etdump, debug_buffer, etrecord, capture
    std::string path;
    std::uint64_t bytes = 0;
    std::string sha256;
};

// Everything a report shows beyond the rows.
struct ReportContext {
    std::vector<InputProvenance> inputs;
    MetricThreshold threshold{"snr", 20.0};
    std::optional<FirstDivergence> first_divergence;
    std::vector<Introducer> introducers;
    std::vector<MetricThreshold> gates;
};

// The JSON report (docs/cli.md): rows, coverage, first_divergence, introducers,
// provenance.
nlohmann::ordered_json comparisonToJson(const Comparison& c, const ReportContext& ctx);
// CSV with one line per row and the CLI table's columns (RFC 4180 quoting).
void writeComparisonCsv(std::ostream& out, const Comparison& c);
void writeComparisonMarkdown(std::ostream& out, const Comparison& c, const ReportContext& ctx);
void writeComparisonTable(std::ostream& out, const Comparison& c, const ReportContext& ctx);

} // namespace gapscope
