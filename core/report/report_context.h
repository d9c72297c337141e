#pragma once

#include "core/common/input_role.h"
// What a report shows beyond the rows, apart from how any report is written:
// the session hands it out, and the views read it, without the JSON library
// behind the report writers (compare_report.h).

#include "core/compare/comparison_value.h"
#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "core/profile/op_latency.h"
#include "core/runs/run_diff.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

struct InputProvenance {
    InputRole role = InputRole::EtDump;
    std::string path;
    std::uint64_t bytes = 0;
    std::string sha256;
};

// Everything a report shows beyond the rows.
struct ReportContext {
    std::vector<InputProvenance> inputs;
    MetricThreshold threshold = kDefaultThreshold;
    std::optional<FirstDivergence> first_divergence;
    std::vector<Introducer> introducers;
    std::vector<MetricThreshold> gates;
    // Which reference graph the rows' debug handles index (referenceProgramDigest);
    // "" when there is no capture.
    std::string reference_program;
    // What the gaps are measured against (referenceKindLabel); "" without a capture.
    std::string reference_kind;
    // Each row's time (op_latency.h); null when the ETDump has no timing for the run.
    std::shared_ptr<const ComparisonLatency> latency;
    // What the report is of ("vit/portable", a saved session's name); "" unnamed.
    std::string session_name;
    // The A/B comparison shown beside the session, when there is one: the
    // report then has a section on it (issue 56: it had no word of B).
    std::shared_ptr<const ComparedRuns> ab;
    Metric ab_metric = Metric::Snr;
};

} // namespace gapscope
