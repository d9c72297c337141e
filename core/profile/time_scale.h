#pragma once

#include <optional>
#include <string_view>

namespace gapscope {

// The time units of ExecuTorch's Inspector (devtools/inspector/_inspector_utils.py,
// TimeScale): what an ETDump's ticks are (the source) and what the table shows
// (the target). Its defaults: ns → ms.
enum class TimeScale { Ns, Us, Ms, S, Cycles };

const char* timeScaleName(TimeScale scale); // "ns", "us", "ms", "s", "cycles"
std::optional<TimeScale> parseTimeScale(std::string_view name);

// ExecuTorch's calculate_time_scale_factor: units of the source per unit of the
// target (ns → ms: 10⁶); a non-delegated duration in the target is ticks / factor.
// Cycles count 1 per second there, so cycles → cycles is 1.
double timeScaleFactor(TimeScale source, TimeScale target);

// The Inspector refuses cycles on one side only ("For TimeScale in cycles both the
// source and target time scale have to be in cycles").
bool timeScalesCompatible(TimeScale source, TimeScale target);

} // namespace gapscope
