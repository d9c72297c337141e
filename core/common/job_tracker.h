#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace gapscope {

// Background work of one kind (the app's session load, the tensor panel's error
// breakdown), run on the process's background threads (see runInBackground).
// Each job started gets a generation and a cancellation flag; starting another
// supersedes the last: its flag is set, and whatever it delivers late is
// recognised as stale with isCurrent(). Long work reads the flag between blocks
// (GapOptions::cancelled, StageCallbacks::cancelled).
//
// start, cancel and isCurrent belong to the owner's thread (the UI thread); the
// job reads only its flag. The destructor cancels and waits for every job it
// started, so a job may safely use its owner until it returns.
class JobTracker {
public:
    using Job = std::function<void(std::uint64_t generation, const std::atomic<bool>& cancelled)>;

    JobTracker() = default;
    ~JobTracker();
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;

    // Cancels the current job and starts `job`; returns its generation.
    std::uint64_t start(Job job);
    // Cancels the current job: its results are stale from now on.
    void cancel();
    bool isCurrent(std::uint64_t generation) const { return generation == m_generation; }
    // Jobs started here and not yet returned (superseded ones winding down too).
    int running() const;
    // Blocks until every job started here has returned.
    void waitForIdle();

private:
    std::uint64_t m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    mutable std::mutex m_mutex;
    std::condition_variable m_idle;
    int m_running = 0;
};

// The process's background threads, started on first use: as many as cores,
// at least three, so a session load, a superseded one winding down and a
// tensor panel job run at once. A job that needs more cores calls parallelFor,
// whose helpers are the one compute pool (parallel.h). JobTracker is the way in.
void runInBackground(std::function<void()> job);

} // namespace gapscope
