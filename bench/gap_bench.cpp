#include "bench/gap_bench.h"

#include "bench/bench_timing.h"
#include "core/common/parallel.h"
#include "core/metrics/gap_metrics.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

namespace gapscope::bench {

void benchGap(std::string& json) {
    const std::size_t n = 16u << 20;
    std::vector<float> a(n), b(n);
    std::mt19937 rng(1);
    std::normal_distribution<float> dist;
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = dist(rng);
        b[i] = a[i] + 1e-3f * dist(rng);
    }
    const auto span = [](const std::vector<float>& v) {
        return ByteSpan{reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(float)};
    };
    const Operand oa = Operand::tensor(ScalarType::Float, {static_cast<std::int64_t>(n)}, span(a), n);
    const Operand ob = Operand::tensor(ScalarType::Float, {static_cast<std::int64_t>(n)}, span(b), n);
    double sink = 0;
    GapOptions one;
    one.threads = 1;
    double mse = 0;
    // Interleaved rounds: the bare sum, one thread, every thread, one after the
    // other, so that each round's three figures share the machine's state of the
    // moment. This machine's noise only ever adds time (a neighbour on a core, a
    // slow moment of the host), and a 15 ms round can lose a third of itself to
    // it, so the figures are the ratios of each side's fastest round: the time
    // the code takes when nothing else does. A slower build raises its own
    // fastest round as surely as its median, so the figure still fails on a
    // regression. The per-round ratios' median and quartiles are the spread.
    // The rounds are spread over some four seconds, a pause between them, so
    // that a neighbour busy for a second or two leaves some rounds alone.
    constexpr int kRounds = 25;
    std::vector<double> ratios, speedups, sums, ones, alls;
    for (int round = 0; round < kRounds; ++round) {
        if (round > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        auto t0 = Clock::now();
        double s = 0;
        for (std::size_t i = 0; i < n; ++i)
            s += static_cast<double>(a[i]) - static_cast<double>(b[i]);
        sink += s;
        const double tSum = seconds(t0);
        t0 = Clock::now();
        mse = computeGap(oa, ob, one).metrics->mse;
        const double t1 = seconds(t0);
        t0 = Clock::now();
        mse = computeGap(oa, ob).metrics->mse;
        const double tN = seconds(t0);
        ratios.push_back(t1 / tSum);
        speedups.push_back(t1 / tN);
        sums.push_back(tSum);
        ones.push_back(t1);
        alls.push_back(tN);
    }
    const auto fastest = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
    const double ratioFast = fastest(ones) / fastest(sums), speedupFast = fastest(ones) / fastest(alls);
    const auto ratio = quartiles(ratios), speedup = quartiles(speedups);
    std::printf(
        "gap: %zu float32 pairs (mse %.3g), %d interleaved rounds, fastest: sum %.1f ms, 1 thread %.1f ms, "
        "%u "
        "threads %.1f ms: speed-up %.2fx (per round: median %.2f, quartiles %.2f-%.2f); all metrics / bare "
        "difference sum = %.2fx (per round: median %.2f, quartiles %.2f-%.2f) (%g)\n",
        n, mse, kRounds, fastest(sums) * 1e3, fastest(ones) * 1e3, defaultThreadCount(), fastest(alls) * 1e3,
        speedupFast, speedup[1], speedup[0], speedup[2], ratioFast, ratio[1], ratio[0], ratio[2], sink * 0);
    // All metrics against a bare streaming pass over the same bytes, one thread;
    // the speed-up with every core (two on the reference machine).
    json += ",\"metrics_ratio\":" + std::to_string(ratioFast) +
            ",\"metrics_ratio_median\":" + std::to_string(ratio[1]) +
            ",\"metrics_ratio_q1\":" + std::to_string(ratio[0]) +
            ",\"metrics_ratio_q3\":" + std::to_string(ratio[2]) +
            ",\"metrics_speedup_threads\":" + std::to_string(speedupFast) +
            ",\"metrics_speedup_threads_median\":" + std::to_string(speedup[1]) +
            ",\"metrics_speedup_threads_q1\":" + std::to_string(speedup[0]) +
            ",\"metrics_speedup_threads_q3\":" + std::to_string(speedup[2]) +
            ",\"threads\":" + std::to_string(defaultThreadCount());
}

} // namespace gapscope::bench
