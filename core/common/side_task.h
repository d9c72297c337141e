#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace gapscope {

namespace detail {
// Posts to the process's background threads (runInBackground's), tagged.
void postSideTask(std::function<void()> task, const void* tag);
// Removes it if no thread has taken it yet; true when removed.
bool withdrawSideTask(const void* tag);
} // namespace detail

// Work started beside the caller's own (hashing the ETRecord while rows are
// measured) and joined later, on the one set of background threads. Joining
// never waits for a free thread: a task no thread has taken yet is withdrawn and
// run by the caller, so jobs that each wait for a side task cannot deadlock
// however many of them hold the threads. The destructor joins, so the task may
// use what the caller's scope holds (as std::async's future would, without its
// thread of its own).
template <typename T> class SideTask {
public:
    explicit SideTask(std::function<T()> fn) : m_state(std::make_shared<State>()) {
        m_state->fn = std::move(fn);
        detail::postSideTask([state = m_state] { state->run(); }, m_state.get());
    }
    ~SideTask() {
        if (m_state)
            join();
    }
    SideTask(const SideTask&) = delete;
    SideTask& operator=(const SideTask&) = delete;

    // The task's result; runs it here if no thread has started it.
    T get() {
        join();
        auto state = std::move(m_state);
        return std::move(*state->result);
    }

private:
    struct State {
        std::function<T()> fn;
        std::mutex mutex;
        std::condition_variable done;
        std::optional<T> result;
        void run() {
            T value = fn();
            std::lock_guard<std::mutex> lock(mutex);
            result = std::move(value);
            done.notify_all();
        }
    };
    void join() {
        if (detail::withdrawSideTask(m_state.get()))
            m_state->run();
        std::unique_lock<std::mutex> lock(m_state->mutex);
        m_state->done.wait(lock, [&] { return m_state->result.has_value(); });
    }
    std::shared_ptr<State> m_state;
};

} // namespace gapscope
