#pragma once

#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/profile/perf_stats.h"
#include "core/profile/time_scale.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One row of ExecuTorch's Inspector timing table (Inspector.to_dataframe(),
// docs/profiling.md): an event of an event block, with its duration in every run
// of the block.
struct ProfiledEvent {
    std::string name; // event_name: a delegated op's is its delegate debug identifier
    std::int32_t instruction_id = -1;
    // delegate_debug_identifier: an int or a string id, when delegated.
    std::optional<std::int64_t> delegate_id_int;
    std::optional<std::string> delegate_id_str;
    bool is_delegated_op = false;
    // delegate_backend_name, from the ETRecord's delegate map ("" without one).
    std::string delegate_backend_name;
    // Durations in the target time scale, one per run of the block; empty when the
    // event has no profiling (intermediate outputs only).
    std::vector<double> raw;
    std::vector<std::uint64_t> start_times; // the source ticks, per run
    std::optional<PerfStats> perf;
    // Method::init, Program::load_method, Method::execute: the framework's own.
    bool framework = false;
    // In some run it ends before it starts: its duration is the 32-bit
    // wraparound ExecuTorch's Inspector computes, which a counter that truly
    // wrapped gives right and a bad timestamp gives as about 2^32 ticks.
    bool ends_before_start = false;
};

// Runs whose events have one signature form one block (the Inspector's EventBlock).
struct ProfiledBlock {
    std::string name; // the RunData's
    std::int32_t bundled_input_index = -1;
    std::vector<std::size_t> runs; // the RunData indices, in order
    std::vector<ProfiledEvent> events;
};

struct ProfileTable {
    TimeScale source = TimeScale::Ns, target = TimeScale::Ms;
    std::vector<ProfiledBlock> blocks;
    // Where Gapscope goes on and ExecuTorch's Inspector raises, said once each
    // ("run 2 logs allocation events: the Inspector raises on them; skipped").
    std::vector<std::string> notes;
};

struct ProfileOptions {
    TimeScale source = TimeScale::Ns;
    TimeScale target = TimeScale::Ms;
    // Names the delegates (delegate_backend_name) as the Inspector does with an
    // ETRecord: the "forward" method's maps.
    const EtRecord* etrecord = nullptr;
};

// The Inspector's EventBlocks and Events, rule for rule (EventBlock._gen_from_etdump):
// events of a run collated per instruction (instruction id, chain, delegate id),
// one event per profile event, a later one of the same signature replacing the
// earlier in place; runs of one signature grouped. A non-delegated duration is
// (end − start) / f, f = timeScaleFactor(source, target); a delegated one is
// end / f − start / f, as the Inspector's default delegate time-scale converter
// gives it; a start after the end wraps around 32 bits.
ProfileTable profileTable(const EtDump& dump, const ProfileOptions& options = {});

// A delegated profile event's debug identifier as the Inspector names the event
// (an int id as its digits, else a non-empty string id); none when not delegated.
std::optional<std::string> delegateIdentifier(const ProfileEvent& event);

// Event._calculate_elapsed_time, on ticks or on times already converted: end −
// start, or across a 32-bit clock's wraparound when the start is later.
// `impossible` is set when no 32-bit wraparound explains it (the Inspector raises).
template <class T> double elapsedTime(T start, T end, bool& impossible) {
    constexpr std::uint64_t kMaxUint32 = 0xFFFFFFFFull;
    impossible = false;
    if (start <= end)
        return static_cast<double>(end - start);
    impossible = start > static_cast<T>(kMaxUint32) || end > static_cast<T>(kMaxUint32);
    return static_cast<double>((static_cast<T>(kMaxUint32) - start) + end);
}

} // namespace gapscope
