#include "core/common/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
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
    unsigned wanted = 0; // helpers still to join
    unsigned active = 0; // helpers running it
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
// once): it takes whatever indices are left itself.
class Pool {
public:
    static Pool& instance() {
        static Pool pool(defaultThreadCount() - 1);
        return pool;
    }

    // The job lives on the caller's stack: it leaves the queue and every helper
    // has finished with it before this returns.
    void run(Job& job, unsigned helpers) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            job.wanted = std::min<unsigned>(helpers, static_cast<unsigned>(m_threads.size()));
            if (job.wanted > 0)
                m_queue.push_back(&job);
        }
        m_wake.notify_all();
        job.work();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_queue.erase(std::remove(m_queue.begin(), m_queue.end(), &job), m_queue.end());
        m_done.wait(lock, [&] { return job.active == 0; });
    }

    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (auto& t : m_threads)
            t.join();
    }

private:
    explicit Pool(unsigned threads) {
        for (unsigned t = 0; t < threads; ++t)
            m_threads.emplace_back([this] { loop(); });
    }

    void loop() {
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_stop)
                return;
            Job* job = m_queue.front();
            if (--job->wanted == 0)
                m_queue.pop_front();
            ++job->active;
            lock.unlock();
            job->work();
            lock.lock();
            --job->active;
            m_done.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::deque<Job*> m_queue;
    std::vector<std::thread> m_threads;
    bool m_stop = false;
};

} // namespace

unsigned defaultThreadCount() {
    return std::max(1u, std::thread::hardware_concurrency());
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
    Pool::instance().run(job, threads - 1);
}

} // namespace gapscope
