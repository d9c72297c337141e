#include "core/common/parallel.h"

#include "core/common/task_queue.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace gapscope {

namespace {

// Inside a parallel loop (as a pool worker or as the caller taking part), a
// nested loop runs serially: the machine's cores are already busy, and a new
// thread per call would reach cores² threads (rows in parallel, each row's
// tensor in parallel).
thread_local int t_parallelDepth = 0;

struct Job {
    const std::function<void(std::size_t)>* fn = nullptr;
    std::size_t n = 0;
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::condition_variable done;
    std::size_t finished = 0; // helper tasks that have returned
    void work() {
        ++t_parallelDepth;
        for (std::size_t i = next++; i < n; i = next++)
            (*fn)(i);
        --t_parallelDepth;
    }
};

// One pool for the process: cores − 1 threads started once; the caller of a
// loop is the last worker. A loop never waits for a helper to start (helpers
// may be busy with another loop, e.g. the loader's and the tensor panel's at
// once): it takes whatever indices are left itself, then withdraws the helper
// tasks that never started.
TaskQueue& helpers() {
    static TaskQueue pool(defaultThreadCount() - 1);
    return pool;
}

// The job lives on the caller's stack: every helper task is withdrawn or has
// returned before this returns.
void runWithHelpers(Job& job, unsigned wanted) {
    TaskQueue& pool = helpers();
    const std::size_t posted = std::min<std::size_t>(wanted, pool.threadCount());
    for (std::size_t h = 0; h < posted; ++h)
        pool.post(
            [&job] {
                job.work();
                std::lock_guard<std::mutex> lock(job.mutex);
                ++job.finished;
                job.done.notify_all();
            },
            &job);
    job.work();
    const std::size_t withdrawn = pool.withdraw(&job);
    std::unique_lock<std::mutex> lock(job.mutex);
    job.done.wait(lock, [&] { return job.finished == posted - withdrawn; });
}

} // namespace

unsigned defaultThreadCount() {
    return std::max(1u, std::thread::hardware_concurrency());
}

void parallelForRanges(std::size_t n, std::size_t block,
                       const std::function<void(std::size_t, std::size_t)>& fn) {
    parallelFor((n + block - 1) / block, [&](std::size_t r) { fn(r * block, std::min(n, (r + 1) * block)); });
}

void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned threads) {
    if (threads == 0)
        threads = defaultThreadCount();
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, n));
    if (threads <= 1 || t_parallelDepth > 0) {
        for (std::size_t i = 0; i < n; ++i)
            fn(i);
        return;
    }
    Job job;
    job.fn = &fn;
    job.n = n;
    runWithHelpers(job, threads - 1);
}

} // namespace gapscope
