#include "core/session/stage_runner.h"

#include "core/common/parallel.h"

#include <algorithm>
#include <chrono>

namespace gapscope {

void runStages(const Session& session, const std::vector<RowPlan>& pending, const StageCallbacks& callbacks) {
    auto stopped = [&] { return callbacks.cancelled && callbacks.cancelled->load(); };
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
    if (stopped() || !session.comparison || !session.dump || !session.capture)
        return;
    auto outputs = compareProgramOutputs(*session.dump, *session.capture, session.comparison->run);
    auto provenance = checkCaptureProvenance(session);
    if (callbacks.completed)
        callbacks.completed(std::move(outputs), std::move(provenance));
}

} // namespace gapscope
