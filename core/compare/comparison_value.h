#pragma once

#include "core/align/alignment.h"
#include "core/align/inspector_events.h"
#include "core/align/saved_outputs.h"
#include "core/common/shared_blocks.h"
#include "core/compare/comparison_row.h"
#include "core/compare/coverage_kind.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

struct CoverageItem {
    CoverageKind kind = CoverageKind::UnresolvedEvent;
    std::string what; // op or event name
    HandleTuple handles;
    std::string reason;
};

// The program's outputs on the device against the capture's reference outputs.
struct OutputComparison {
    std::size_t index = 0;
    RowStatus status = RowStatus::Ok;
    std::string reason;
    std::string shape, dtype;
    std::optional<GapMetrics> metrics;
};

// What the rows are read from: the run's events and their alignment with the
// capture. Built once by planComparison and never changed after, so every copy
// of a Comparison shares it (rows and coverage point into it). The alignment
// points into `events`: a copy would point into the original, so there is none
// (a move keeps the vector's storage, and with it every pointer).
struct AlignedRun {
    AlignedRun() = default;
    AlignedRun(const AlignedRun&) = delete;
    AlignedRun& operator=(const AlignedRun&) = delete;
    AlignedRun(AlignedRun&&) = default;
    AlignedRun& operator=(AlignedRun&&) = default;

    std::vector<InspectorEvent> events;
    Alignment alignment;
};

// A value: copies are cheap to make safely (the alignment is shared and
// immutable; rows are copied) and independent, so a loader can publish a
// snapshot after each stage while it goes on measuring its own copy. Rows also
// point into the session's inputs (ETDump, capture), which must outlive every
// copy: a Session snapshot holds them.
struct Comparison {
    std::string method; // the program method compared
    std::size_t run = 0;
    // Multi-method programs: per ETDump run, the methods its events fit (see
    // run_methods.h); empty for single-method programs.
    std::vector<std::vector<std::string>> run_methods;
    std::vector<OutputComparison> outputs; // empty when the capture has no reference outputs
    // The outputs the user saved (ComparisonOptions::saved_outputs), kept alive
    // with the rows whose operands view their bytes. Null: the ETDump's.
    std::shared_ptr<const SavedOutputs> saved_outputs;
    std::shared_ptr<const AlignedRun> aligned;
    // Blocks a copy shares until one is written (SharedBlocks): a snapshot copies
    // a pointer per 256 rows, not the rows.
    SharedBlocks<ComparisonRow> rows;
    std::vector<CoverageItem> coverage;
    std::vector<std::string> warnings;
    // What the session can and cannot tell, where the numbers are right but coarse
    // (delegateGranularityNote): shown apart from the warnings, never a failure.
    std::vector<std::string> notes;

    const std::vector<InspectorEvent>& events() const;
    const Alignment& alignment() const;
};

} // namespace gapscope
