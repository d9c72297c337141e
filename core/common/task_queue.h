#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gapscope {

// A fixed set of threads running posted tasks in order: the one thread pool
// implementation under parallelFor's helpers and the background jobs. A task
// may carry a tag, so that whoever posted it can withdraw the ones not started.
class TaskQueue {
public:
    explicit TaskQueue(unsigned threads);
    // Stops the threads: tasks not started are dropped, running ones finish.
    ~TaskQueue();
    TaskQueue(const TaskQueue&) = delete;
    TaskQueue& operator=(const TaskQueue&) = delete;

    void post(std::function<void()> task, const void* tag = nullptr);
    // Removes the queued tasks posted with `tag`; returns how many.
    std::size_t withdraw(const void* tag);
    std::size_t threadCount() const { return m_threads.size(); }

private:
    void loop();

    struct Task {
        std::function<void()> run;
        const void* tag;
    };
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Task> m_queue;
    std::vector<std::thread> m_threads;
    bool m_stop = false;
};

} // namespace gapscope
