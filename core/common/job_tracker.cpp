#include "core/common/job_tracker.h"

#include "core/common/parallel.h"
#include "core/common/side_task.h"
#include "core/common/task_queue.h"

#include <algorithm>

namespace gapscope {

namespace {

// As many threads as cores, at least three (see the header).
TaskQueue& backgroundThreads() {
    static TaskQueue threads(std::max(3u, defaultThreadCount()));
    return threads;
}

} // namespace

void runInBackground(std::function<void()> job) {
    backgroundThreads().post(std::move(job));
}

namespace detail {

void postSideTask(std::function<void()> task, const void* tag) {
    backgroundThreads().post(std::move(task), tag);
}

bool withdrawSideTask(const void* tag) {
    return backgroundThreads().withdraw(tag) > 0;
}

} // namespace detail

JobTracker::~JobTracker() {
    cancel();
    waitForIdle();
}

std::uint64_t JobTracker::start(Job job) {
    cancel();
    const std::uint64_t generation = m_generation;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    m_cancelled = cancelled;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m_running;
    }
    runInBackground([this, generation, cancelled, job = std::move(job)] {
        job(generation, *cancelled);
        std::lock_guard<std::mutex> lock(m_mutex);
        if (--m_running == 0)
            m_idle.notify_all();
    });
    return generation;
}

void JobTracker::cancel() {
    ++m_generation; // whatever the running job still delivers is stale
    if (m_cancelled)
        m_cancelled->store(true);
}

int JobTracker::running() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_running;
}

void JobTracker::waitForIdle() {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_idle.wait(lock, [&] { return m_running == 0; });
}

} // namespace gapscope
