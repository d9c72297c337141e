#pragma once

#include "core/common/job_tracker.h"

#include <QMetaObject>
#include <QObject>
#include <cstdint>
#include <utility>

namespace gapscope {

// Hands a background job's result to the UI: runs `fn` on `receiver`'s thread,
// unless the job of `generation` was superseded or cancelled by then (or the
// receiver is gone: Qt drops a queued call to a destroyed context). `jobs`
// belongs to the receiver, so it lives as long as the call can run.
template <class Fn>
void postIfCurrent(QObject* receiver, const JobTracker& jobs, std::uint64_t generation, Fn fn) {
    QMetaObject::invokeMethod(
        receiver,
        [&jobs, generation, fn = std::move(fn)]() mutable {
            if (jobs.isCurrent(generation))
                fn();
        },
        Qt::QueuedConnection);
}

} // namespace gapscope
