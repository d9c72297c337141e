#pragma once

#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/metrics/gap_metrics.h"

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gapscope {

// The tapped (debug) build against the production build of the same model
// (issue 58). A tap adds outputs to the program before it is quantised and
// lowered, so the build it makes may not be the one shipped:
// - a delegate may hold other ops (a partition cut at a tap), or an op run on
//   the CPU in one build and inside a delegate in the other;
// - the quantiser may fuse less: a tapped conv has a second user, so it no
//   longer fuses with its ReLU and its output is requantised;
// - and then the program's outputs differ, and the tap rows describe another
//   program than the one shipped.
// Ops are matched by node name in the two ETRecords' edge programs (a tap adds
// nodes of its own target and renames no other); where an op runs comes from
// each ETRecord's debug-handle and delegate maps.

// Where one op runs in a build.
struct OpPlacement {
    std::string where;        // "delegate 1 of 2 (XnnpackBackend)", "CPU", "not run"
    bool requantized = false; // its output feeds a quantize node (quantised on its own)
};

struct PlacementDifference {
    std::string op; // the edge program's node name
    OpPlacement tapped, production;
    bool present_in_tapped = true, present_in_production = true;
};

// One program output of the two runs (the tapped run's outputs other than its taps).
struct OutputAgreement {
    std::size_t index = 0;        // in the production run's outputs
    std::size_t tapped_index = 0; // in the tapped run's outputs
    enum class Verdict { Identical, WithinRounding, Differs, Invalid } verdict = Verdict::Invalid;
    std::optional<GapMetrics> metrics; // production as the reference, tapped as the value
    std::string reason;                // why Invalid
};

const char* verdictName(OutputAgreement::Verdict verdict);

struct ProductionCheck {
    std::string method;
    std::size_t tapped_delegates = 0, production_delegates = 0;
    std::size_t ops_compared = 0; // ops of both builds, by name
    std::vector<PlacementDifference> differences;
    // Per delegate of either build whose ops differ: "delegate 1 of 1 (XnnpackBackend):
    // aten_convolution_default requantised in the tapped build".
    std::vector<std::string> delegate_notes;
    std::vector<OutputAgreement> outputs; // empty without both runs
    bool runs_compared = false;
    // Sentences for the user: what differs, and what it means for the tap rows.
    std::vector<std::string> findings;

    bool samePartitions() const { return differences.empty() && tapped_delegates == production_delegates; }
    bool outputsAgree() const;
};

// Output agreement "within rounding": relative L2 error at most this (a few
// float32 units in the last place over the tensor; docs/metrics.md).
inline constexpr double kRoundingRelL2 = 1e-6;

// `tappedRun`/`productionRun`: the runs compared (null: partitions only).
// `tapOutputs`: the tapped program's outputs that are taps (tappedOutputs).
ProductionCheck checkProduction(const EtRecord& tapped, const EtRecord& production, const std::string& method,
                                const EtDump* tappedDump, std::size_t tappedRun, const EtDump* productionDump,
                                std::size_t productionRun, const std::set<std::size_t>& tapOutputs);

} // namespace gapscope
