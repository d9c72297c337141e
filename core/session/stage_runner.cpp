#include "core/session/stage_runner.h"

#include "core/common/page_releaser.h"
#include "core/common/parallel.h"
#include "core/common/side_task.h"

#include <algorithm>
#include <chrono>

namespace gapscope {

namespace {

// A measured row's tensors leave resident memory: each input page is read
// once, and without this a session's whole debug buffer and capture stayed
// resident to the end (ViT-S/16: 520 MB of its 720 MB peak). A later read (a
// heatmap, a report's second pass, a row of the same batch sharing a tensor)
// reads them again from the page cache. Each measuring thread adds its row's
// spans; once kReleaseBytes are held, the thread that reached it gives them
// back merged (PageReleaser): a call per tensor was 0.4 s of 1.4 s on a
// 65-step LLM session.
void releaseMeasured(const Session& session, const RowPlan& plan, PageReleaser& releaser) {
    const MappedFile* files[] = {session.debug_buffer_file.get(), session.capture_file.get(),
                                 session.etdump_file.get()};
    const auto release = [&](const Operand& operand) {
        if (operand.is_scalar || operand.bytes.empty())
            return;
        for (const auto* file : files)
            if (file && file->holds(operand.bytes))
                releaser.add(*file, operand.bytes);
    };
    for (const auto* elements : {&plan.elements(), &plan.executorch_elements})
        for (const auto& e : *elements) {
            release(e.reference);
            release(e.runtime);
        }
}

// The input bytes a row's measurement reads (both sides, ExecuTorch's own
// pairing included).
std::size_t bytesRead(const RowPlan& plan) {
    std::size_t bytes = 0;
    for (const auto* elements : {&plan.elements(), &plan.executorch_elements})
        for (const auto& e : *elements)
            bytes += e.reference.bytes.size + e.runtime.bytes.size;
    return bytes;
}

// ViT-S/16: batches grown to 128 rows read 100 MB or more, and the peak
// followed (235 MB, 85 MB with this bound, in the same time).
constexpr std::size_t kBatchBytes = 32u << 20;
// Measured bytes held before they are given back (PageReleaser), by the
// measuring thread that reaches it. A trade: a step of an LLM session (33 MB
// of inputs, its capture's tensors stored by name, not in row order) is
// given back in a call or two at 32 MB, in 27 at 16 MB and 42 at 8 MB
// (`--all-runs` 0.57, 0.63 and 0.65 s); ViT-S/16's peak resident set, mapped
// input pages all, is 86, 70 and 66 MB (48 MB with a call per tensor, 137 MB
// with 64 MB held). Anonymous memory is the same either way.
constexpr std::size_t kReleaseBytes = 32u << 20;

} // namespace

std::size_t measurementBatchEnd(const std::vector<RowPlan>& pending, std::size_t begin, std::size_t rows,
                                std::size_t cores, std::size_t maxBytes) {
    const std::size_t last = std::min(pending.size(), begin + std::max<std::size_t>(rows, 1));
    std::size_t end = begin, bytes = 0;
    while (end < last) {
        bytes += bytesRead(pending[end]);
        if (end - begin >= std::max<std::size_t>(cores, 1) && bytes > maxBytes)
            break;
        ++end;
    }
    return end;
}

void runStages(const Session& session, const std::vector<RowPlan>& pending, const StageCallbacks& callbacks,
               Workspace* workspace) {
    auto stopped = [&] { return callbacks.cancelled && callbacks.cancelled->load(); };
    // For a capture that names its ETRecord by the file's SHA-256 alone, the
    // provenance check hashes the whole ETRecord (0.12 s for ViT-S/16's 180 MB):
    // on a thread of its own, overlapping the measurements, whose batches leave
    // a core idle at every barrier. Cancelling stops it too.
    const bool comparable = session.comparison && session.dump && session.capture;
    SideTask<CaptureProvenance> provenance([&session, &callbacks, comparable, workspace] {
        return comparable ? checkCaptureProvenance(session, callbacks.cancelled, workspace)
                          : CaptureProvenance{};
    });
    std::size_t batch = defaultThreadCount();
    // Across batches: a step's first batches hold a few rows each. What is
    // held at the end is given back when the releaser goes.
    PageReleaser releaser(kReleaseBytes);
    for (std::size_t begin = 0; begin < pending.size();) {
        if (stopped())
            return;
        const std::size_t end = measurementBatchEnd(pending, begin, batch, defaultThreadCount(), kBatchBytes);
        const auto started = std::chrono::steady_clock::now();
        auto measured = measureRows(
            pending.data() + begin, end - begin, callbacks.cancelled,
            [&session, &releaser](const RowPlan& plan) { releaseMeasured(session, plan, releaser); });
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
    auto outputs = compareProgramOutputs(*session.dump, *session.capture, *session.comparison);
    if (callbacks.completed)
        callbacks.completed(std::move(outputs), provenance.get());
}

} // namespace gapscope
