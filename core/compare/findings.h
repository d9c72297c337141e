#pragma once

#include "core/compare/comparison.h"
#include "core/compare/metric_catalog.h"
#include "core/etrecord/etrecord_model.h"

#include <optional>
#include <vector>

namespace gapscope {

// Row indices in execution order: instruction id, then output index.
std::vector<std::size_t> executionOrder(const Comparison& c);

// The first row in execution order (instruction id, then output index) whose
// metric is worse than the threshold.
struct FirstDivergence {
    std::size_t row = 0;
    MetricThreshold threshold;
    double value = 0;
};
std::optional<FirstDivergence> firstDivergence(const Comparison& c, const MetricThreshold& threshold);

// Rows ranked by the error they add: own rel_l2 minus the worst rel_l2 among the
// rows that produce their inputs (producer edges from the reference graph).
struct Introducer {
    std::size_t row = 0;
    double own = 0;
    double worst_producer = 0;
    double added = 0;
    std::vector<std::size_t> producers;
};
std::vector<Introducer> errorIntroducers(const Comparison& c, const ExportGraph* referenceGraph);

// The ETRecord graph a capture was taken from (exported_program, the Edge
// program of its method, or a graph-map key); for another reference (a float
// model) the ETRecord graph that names most of its ops; null if none does.
const ExportGraph* referenceGraphFor(const EtRecord& record, const AotCapture& capture);

} // namespace gapscope
