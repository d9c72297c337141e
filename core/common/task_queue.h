#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gapscope {

// The niceness every TaskQueue thread of this process runs its tasks at,
// applied before each task (so threads started earlier follow too). The app
// sets 10: its background work (measuring, details) then yields the cores to
// the event loop, which otherwise waited behind two busy workers on two cores
// (ui_max_stall_ms on the 4 GiB session: median 37 ms at 0, 21 at 10). 0, the
// default and the CLI's, leaves the threads as the process runs. Linux only;
// raising the niceness needs no privilege, lowering it again does.
void setBackgroundNiceness(int niceness);

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
