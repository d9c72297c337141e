#include "core/profile/time_scale.h"

namespace gapscope {

namespace {

// ExecuTorch's TIME_SCALE_DICT: units per second.
double perSecond(TimeScale scale) {
    switch (scale) {
    case TimeScale::Ns: return 1e9;
    case TimeScale::Us: return 1e6;
    case TimeScale::Ms: return 1e3;
    case TimeScale::S:
    case TimeScale::Cycles: return 1;
    }
    return 1;
}

} // namespace

const char* timeScaleName(TimeScale scale) {
    switch (scale) {
    case TimeScale::Ns: return "ns";
    case TimeScale::Us: return "us";
    case TimeScale::Ms: return "ms";
    case TimeScale::S: return "s";
    case TimeScale::Cycles: return "cycles";
    }
    return "ms";
}

std::optional<TimeScale> parseTimeScale(std::string_view name) {
    for (const TimeScale s : {TimeScale::Ns, TimeScale::Us, TimeScale::Ms, TimeScale::S, TimeScale::Cycles})
        if (name == timeScaleName(s))
            return s;
    return std::nullopt;
}

double timeScaleFactor(TimeScale source, TimeScale target) {
    return perSecond(source) / perSecond(target);
}

bool timeScalesCompatible(TimeScale source, TimeScale target) {
    return (source == TimeScale::Cycles) == (target == TimeScale::Cycles);
}

} // namespace gapscope
