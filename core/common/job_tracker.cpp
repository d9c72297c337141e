#include "core/common/job_tracker.h"

#include "core/common/parallel.h"

#include <deque>
#include <thread>
#include <vector>

namespace gapscope {

namespace {

class BackgroundThreads {
public:
    static BackgroundThreads& instance() {
        static BackgroundThreads threads(std::max(3u, defaultThreadCount()));
        return threads;
    }

    void post(std::function<void()> job) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_queue.push_back(std::move(job));
        }
        m_wake.notify_one();
    }

    ~BackgroundThreads() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (auto& t : m_threads)
            t.join();
    }

private:
    explicit BackgroundThreads(unsigned count) {
        for (unsigned t = 0; t < count; ++t)
            m_threads.emplace_back([this] { loop(); });
    }

    void loop() {
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_stop)
                return; // at exit: every tracker has already waited for its jobs
            auto job = std::move(m_queue.front());
            m_queue.pop_front();
            lock.unlock();
            job();
            lock.lock();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_queue;
    std::vector<std::thread> m_threads;
    bool m_stop = false;
};

} // namespace

void runInBackground(std::function<void()> job) {
    BackgroundThreads::instance().post(std::move(job));
}

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
