#include "core/common/task_queue.h"

#include <algorithm>

namespace gapscope {

TaskQueue::TaskQueue(unsigned threads) {
    for (unsigned t = 0; t < threads; ++t)
        m_threads.emplace_back([this] { loop(); });
}

TaskQueue::~TaskQueue() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& t : m_threads)
        t.join();
}

void TaskQueue::post(std::function<void()> task, const void* tag) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_queue.push_back({std::move(task), tag});
    }
    m_wake.notify_one();
}

std::size_t TaskQueue::withdraw(const void* tag) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto before = m_queue.size();
    m_queue.erase(std::remove_if(m_queue.begin(), m_queue.end(), [&](const Task& t) { return t.tag == tag; }),
                  m_queue.end());
    return before - m_queue.size();
}

void TaskQueue::loop() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
        if (m_stop)
            return;
        Task task = std::move(m_queue.front());
        m_queue.pop_front();
        lock.unlock();
        task.run();
        task.run = nullptr; // whatever it captured is released before the next wait
        lock.lock();
    }
}

} // namespace gapscope
