#include "core/session/stage_runner.h"

#include "core/common/parallel.h"
#include "core/common/side_task.h"

#include <algorithm>
#include <chrono>

namespace gapscope {

void runStages(const Session& session, const std::vector<RowPlan>& pending, const StageCallbacks& callbacks) {
    auto stopped = [&] { return callbacks.cancelled && callbacks.cancelled->load(); };
    // The provenance check hashes the whole ETRecord (0.12 s for ViT-S/16's
    // 180 MB): on a thread of its own, overlapping the measurements, whose
    // batches leave a core idle at every barrier. Cancelling stops it too.
    const bool comparable = session.comparison && session.dump && session.capture;
    SideTask<CaptureProvenance> provenance([&session, &callbacks, comparable] {
        return comparable ? checkCaptureProvenance(session, callbacks.cancelled) : CaptureProvenance{};
    });
    std::size_t batch = defaultThreadCount();
    for (std::size_t begin = 0; begin < pending.size();) {
        if (stopped())
            return;
        const std::size_t end = std::min(pending.size(), begin + batch);
        const auto started = std::chrono::steady_clock::now();
        auto measured = measureRows(pending.data() + begin, end - begin, callbacks.cancelled);
        if (stopped())
            return; // the batch may hold rows cut short
        if (std::chrono::steady_clock::now() - started < std::chrono::milliseconds(50))
            batch = std::min<std::size_t>(batch * 2, 4096);
        if (callbacks.measured)
            callbacks.measured(std::move(measured), end, pending.size());
        begin = end;
    }
    if (stopped() || !comparable)
        return;
    auto outputs = compareProgramOutputs(*session.dump, *session.capture, session.comparison->run);
    if (callbacks.completed)
        callbacks.completed(std::move(outputs), provenance.get());
}

} // namespace gapscope
