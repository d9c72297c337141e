#pragma once

// The clock and the small statistics every benchmark here shares.

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <vector>

namespace gapscope::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <typename F> double bestOf(int runs, F&& f) {
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        f();
        best = std::min(best, seconds(t0));
    }
    return best;
}

// The CPU this process has used, on every thread.
inline double processCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <typename T> T median(std::vector<T> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The first quartile, the median and the third: a figure's spread over rounds.
inline std::array<double, 3> quartiles(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 4], v[v.size() / 2], v[3 * v.size() / 4]};
}

} // namespace gapscope::bench
