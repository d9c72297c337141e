#pragma once

#include "core/session/session.h"

#include <atomic>
#include <functional>
#include <vector>

namespace gapscope {

// The stages after openSessionFiles, in order, on the calling thread: the
// pending rows measured in batches, then the program outputs and the provenance
// check. They only read the session's inputs (thread-safe); each result goes to
// a callback, and the caller decides where it is applied (at once for the CLI,
// posted to the UI thread by the app's loader). One sequence for both.
struct StageCallbacks {
    // Read between batches and inside big tensors; once set, the run stops and
    // nothing more is delivered (not even the batch it interrupted).
    const std::atomic<bool>* cancelled = nullptr;
    // One batch of measured rows; `done` of `total` rows are measured with it.
    std::function<void(std::vector<RowMeasurement> batch, std::size_t done, std::size_t total)> measured;
    // The last stage's results, for completeSession.
    std::function<void(std::vector<OutputComparison> outputs, CaptureProvenance provenance)> completed;
};

// Batches start at the thread count and double while one takes under 50 ms, so
// a UI updates a few times a second whatever the session's size; a batch reads
// at most 32 MiB of inputs once it holds a row per thread (measurementBatchEnd).
// `workspace`: where the provenance check's digest is kept (the opener's).
void runStages(const Session& session, const std::vector<RowPlan>& pending, const StageCallbacks& callbacks,
               Workspace* workspace = nullptr);

// Where the batch from `begin` ends: at most `rows` rows, and once it holds
// `cores` rows no row that takes the input bytes it reads past `maxBytes`.
// The inputs a batch read stay resident until it is released, so its bytes are
// the inputs' share of the peak; rows are what the cores share, so a batch
// never holds fewer than one per core (a batch of one 32 MB row measured the
// 4 GiB session on one core, twice as long). At least one row.
std::size_t measurementBatchEnd(const std::vector<RowPlan>& pending, std::size_t begin, std::size_t rows,
                                std::size_t cores, std::size_t maxBytes);

} // namespace gapscope
