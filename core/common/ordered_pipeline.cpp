#include "core/common/ordered_pipeline.h"

#include "core/common/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace gapscope {

std::size_t orderedPipeline(std::size_t n, std::size_t window,
                            const std::function<void(std::size_t)>& produce,
                            const std::function<bool(std::size_t)>& consume) {
    window = std::max<std::size_t>(window, 1);
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<char> ready(n, 0);
    std::size_t nextProduce = 0, nextConsume = 0;
    bool stop = false;
    const auto caller = std::this_thread::get_id();
    // Each step leaves the lock while it works, and says what it changed.
    const auto consumeNext = [&](std::unique_lock<std::mutex>& lock) {
        const std::size_t i = nextConsume;
        lock.unlock();
        const bool go = consume(i);
        lock.lock();
        ++nextConsume;
        stop = stop || !go;
        changed.notify_all();
    };
    const auto produceNext = [&](std::unique_lock<std::mutex>& lock) {
        const std::size_t i = nextProduce++;
        lock.unlock();
        produce(i);
        lock.lock();
        ready[i] = 1;
        changed.notify_all();
    };
    // The calling thread consumes whatever is ready before producing more; the
    // others only produce. parallelFor may give the caller no turn (helpers took
    // them all): it then consumes below, after them.
    parallelFor(defaultThreadCount(), [&](std::size_t) {
        const bool consuming = std::this_thread::get_id() == caller;
        std::unique_lock<std::mutex> lock(mutex);
        while (!stop) {
            if (consuming && nextConsume < n && ready[nextConsume])
                consumeNext(lock);
            else if (consuming && nextConsume >= n)
                break;
            else if (nextProduce < n && nextProduce < nextConsume + window)
                produceNext(lock);
            else if (!consuming && nextProduce >= n)
                break;
            else
                changed.wait(lock);
        }
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!stop && nextConsume < n && ready[nextConsume])
        consumeNext(lock);
    return nextConsume;
}

} // namespace gapscope
