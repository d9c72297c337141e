#include "core/common/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace gapscope {

unsigned defaultThreadCount() {
    return std::max(1u, std::thread::hardware_concurrency());
}

void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned threads) {
    if (threads == 0)
        threads = defaultThreadCount();
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, n));
    if (threads <= 1) {
        for (std::size_t i = 0; i < n; ++i)
            fn(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < n; i = next++)
            fn(i);
    };
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();
}

} // namespace gapscope
