#pragma once

#include "core/compare/comparison_value.h"
#include "core/report/report_context.h"
#include "core/report/version_info.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gapscope {

// The JSON report's `schema_version` (docs/cli.md): 2 added it, with
// `reference_program` and each row's `source`; 3 added `latency`, per row and for
// the run; a report without it is version 1. readSavedReport reads every version
// up to this one.
constexpr int kReportSchemaVersion = 3;

// The JSON report (docs/cli.md): rows, coverage, first_divergence, introducers,
// provenance.
nlohmann::ordered_json comparisonToJson(const Comparison& c, const ReportContext& ctx);
// CSV with one line per row and the CLI table's columns (RFC 4180 quoting), then
// each row's time (latency_p50_<unit>, time_share), empty without `latency`.
void writeComparisonCsv(std::ostream& out, const Comparison& c, const ComparisonLatency* latency = nullptr);
void writeComparisonMarkdown(std::ostream& out, const Comparison& c, const ReportContext& ctx);
void writeComparisonTable(std::ostream& out, const Comparison& c, const ReportContext& ctx);

} // namespace gapscope
