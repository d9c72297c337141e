#pragma once

#include "core/compare/comparison_value.h"
#include "core/profile/profile_table.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// Where a row's time comes from (docs/profiling.md, "Latency beside the gap").
enum class LatencySource {
    None,          // no timed event is this row's: see RowLatency::reason
    OperatorCall,  // the OPERATOR_CALLs of the instructions that carry the row's handles (several
                   // when the op was lowered to several kernels), summed run by run
    DelegateCall,  // the DELEGATE_CALL whose output the row compares (XNNPACK: the whole call)
    DelegateOp,    // the delegate's own event for the row's node, in time units
    DelegateCycles // QNN's cycles for the row's node: its share of the call's op cycles × the call's time
};
const char* latencySourceName(LatencySource source); // "operator_call", …

// One comparison row's time, over the runs of the timing block that holds the
// compared run: the median (p50) of its event's durations, in the table's
// target scale, and that median over Method::execute's.
struct RowLatency {
    LatencySource source = LatencySource::None;
    std::optional<double> p50;
    std::optional<double> share; // of the run's time, 0..1 (can pass 1 for a call outside execute)
    std::string event;           // the event read ("OPERATOR_CALL", "aten_linear_default:OpId_28 (cycles)")
    // Every event read (summed; the first names the row), in the block's events;
    // empty when source == None.
    std::vector<std::size_t> events;
    std::vector<std::int32_t> instructions; // the instructions whose events were read
    // QNN's cycles: the node's cycles and the call's op cycles they are a share of.
    std::optional<double> cycles, call_cycles;
    // How many rows read the same event (a delegate call with several outputs).
    std::size_t shared_by = 1;
    std::string reason; // why there is no time, when source == None
    // A tap's row (issue 58): its op runs inside another row's instruction,
    // which holds its time; it has none of its own and is no row "without a time".
    bool tap = false;
};

// A timed event no row reads: the reverse of a row without a time.
struct UntimedEvent {
    std::string name;
    std::int32_t instruction_id = -1;
    double p50 = 0;
    std::string reason;
};

struct ComparisonLatency {
    TimeScale scale = TimeScale::Ms;
    std::size_t block = 0, runs = 0;   // the timing block of the compared run, and its runs
    std::optional<double> execute_p50; // Method::execute's median: the share's denominator
    std::vector<RowLatency> rows;      // one per Comparison row, in row order
    std::vector<UntimedEvent> timed_without_numerics;
    std::size_t rowsWithoutTime() const;
    std::vector<std::string> notes;
};

// Each row's time, read from the timing table of the same ETDump: the event of
// the row's instruction (an OPERATOR_CALL, or the DELEGATE_CALL whose output it
// compares), or, for a row logged inside a delegate, the delegate's own event
// for its node (QNN's "<node>:OpId_<n> (cycles)" when profile_level is on).
// Nullopt when no block holds the compared run (an ETDump without profiling).
std::optional<ComparisonLatency> comparisonLatency(const ProfileTable& table, const Comparison& comparison);

} // namespace gapscope
