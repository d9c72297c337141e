#pragma once

#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/profile/time_scale.h"

#include <nlohmann/json.hpp>

namespace gapscope {

struct TraceOptions {
    // What the ETDump's ticks are; the trace's timestamps are microseconds.
    TimeScale source = TimeScale::Ns;
    // Names each delegate's track by its backend (the "forward" method's delegate map).
    const EtRecord* etrecord = nullptr;
};

// An ETDump's profiling events as a Chrome trace-event document
// (docs/profiling.md), which Perfetto and chrome://tracing open: one process
// per kind of run ("Execute (65 runs, 1 to 65)"), the framework's and the
// operators' events on its first track (an operator call named by its kernel,
// with its debug handles), each delegate call's own events on a track of their
// own ("XnnpackBackend, instruction 4"), every event a complete ("X") event
// with its start and duration in µs, so that events nest by time. A delegate's
// own events keep the times the delegate logged: its track says whose clock
// (XNNPACK: the runtime's; QNN: cycles from 0, its own). Events that carry no time (intermediate outputs,
// allocations) are left out. With a cycles source the timestamps are cycles, said in `otherData`.
nlohmann::ordered_json traceToJson(const EtDump& dump, const TraceOptions& options = {});

} // namespace gapscope
