// The vectorised reduction against the element-by-element one it replaces: the
// sums must be bit-identical (the reports are), whichever path and machine.

#include "core/metrics/gap_accumulator.h"
#include "core/metrics/gap_metrics.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace gapscope;

namespace {

// The reference: one Sum::add per sum per element, the first largest |d|.
GapAccumulator elementByElement(const double* a, const double* b, std::size_t n, std::uint64_t flat0,
                                GapAccumulator acc = {}) {
    for (std::size_t i = 0; i < n; ++i) {
        const double d = a[i] - b[i];
        acc.d2.add(d * d);
        acc.d1.add(std::fabs(d));
        acc.a2.add(a[i] * a[i]);
        acc.b2.add(b[i] * b[i]);
        acc.ab.add(a[i] * b[i]);
        if (std::fabs(d) > acc.maxAbs) {
            acc.maxAbs = std::fabs(d);
            acc.maxAt = flat0 + i;
        }
    }
    return acc;
}

bool same(double x, double y) {
    return std::memcmp(&x, &y, sizeof x) == 0;
}

void requireSame(const GapAccumulator& x, const GapAccumulator& y) {
    for (auto [p, q] : {std::pair<const Sum*, const Sum*>{&x.d2, &y.d2},
                        {&x.d1, &y.d1},
                        {&x.a2, &y.a2},
                        {&x.b2, &y.b2},
                        {&x.ab, &y.ab}}) {
        REQUIRE(same(p->s, q->s));
        REQUIRE(same(p->c, q->c));
    }
    REQUIRE(same(x.maxAbs, y.maxAbs));
    REQUIRE(x.maxAt == y.maxAt);
}

// Values over many magnitudes, with sudden large terms so that a term often
// exceeds the sum so far (the speculative form's miss) and signs mix.
std::vector<double> hostileValues(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal;
    std::uniform_int_distribution<int> exponent(-30, 30);
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = std::ldexp(normal(rng), i % 97 == 0 ? exponent(rng) * 3 : exponent(rng) / 6);
    return v;
}

} // namespace

// Runs the test body on the wide path, with AVX-512's registers where the
// machine has them (Wide) or with AVX2's alone (Avx2), or the baseline one.
enum Which { Baseline, Avx2, Wide };
struct Path {
    explicit Path(Which which) {
        GapAccumulator::allowWideVectors(which != Baseline);
        GapAccumulator::allowAvx512Registers(which == Wide);
    }
    ~Path() {
        GapAccumulator::allowWideVectors(true);
        GapAccumulator::allowAvx512Registers(true);
    }
};

TEST_CASE("the vectorised sums equal one Sum::add per element, bit for bit", "[metrics][accumulator]") {
    const Path path(GENERATE(Wide, Avx2, Baseline));
    const std::size_t n = 10007;
    const auto a = hostileValues(n, 1), b = hostileValues(n, 2);
    GapAccumulator fast;
    // In uneven pieces, continuing the same accumulator, as the blocks do.
    for (std::size_t first = 0; first < n;) {
        const std::size_t count = std::min<std::size_t>(n - first, 1 + (first * 7919) % 3001);
        fast.addFinite(a.data() + first, b.data() + first, count, 100 + first);
        first += count;
    }
    REQUIRE(fast.allFinite());
    requireSame(fast, elementByElement(a.data(), b.data(), n, 100));
}

TEST_CASE("a chunk's float32 read in place sums as its decoded values do", "[metrics][accumulator]") {
    const Path path(GENERATE(Wide, Avx2, Baseline));
    const std::size_t n = 10007;
    const auto a64 = hostileValues(n, 3), b64 = hostileValues(n, 4);
    std::vector<std::uint8_t> af(1 + n * sizeof(float)), bf(1 + n * sizeof(float)); // misaligned by one byte
    std::vector<double> ad, bd;
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = static_cast<float>(a64[i]), y = static_cast<float>(b64[i]);
        std::memcpy(af.data() + 1 + i * sizeof(float), &x, sizeof x);
        std::memcpy(bf.data() + 1 + i * sizeof(float), &y, sizeof y);
        ad.push_back(x);
        bd.push_back(y);
    }
    GapAccumulator inPlace;
    bool read = true;
    for (std::size_t first = 0; first < n && read;) { // uneven pieces, as the blocks come
        const std::size_t count = std::min<std::size_t>(n - first, 1 + (first * 7919) % 3001);
        read = inPlace.addFiniteFloat(af.data() + 1 + first * sizeof(float),
                                      bf.data() + 1 + first * sizeof(float), count, 100 + first);
        first += count;
    }
    if (!read) { // no vector unit for it (or not allowed): the caller decodes
        requireSame(inPlace, GapAccumulator{});
        SUCCEED("no AVX2 path");
        return;
    }
    REQUIRE(inPlace.allFinite());
    requireSame(inPlace, elementByElement(ad.data(), bd.data(), n, 100));
}

TEST_CASE("four accumulators in the lanes of one vector equal four separate ones", "[metrics][accumulator]") {
    const Path path(GENERATE(Wide, Avx2, Baseline));
    const std::size_t n = 5003; // not a multiple of four: the tail runs one element at a time
    std::vector<std::vector<double>> a, b;
    for (std::uint32_t j = 0; j < 4; ++j) {
        a.push_back(hostileValues(n, 10 + j));
        b.push_back(hostileValues(n, 20 + j));
    }
    GapAccumulator lanes[4];
    GapAccumulator* acc[4] = {&lanes[0], &lanes[1], &lanes[2], &lanes[3]};
    const double* as[4] = {a[0].data(), a[1].data(), a[2].data(), a[3].data()};
    const double* bs[4] = {b[0].data(), b[1].data(), b[2].data(), b[3].data()};
    const std::uint64_t flat0[4] = {0, 1000000, 2000000, 3000000};
    if (!GapAccumulator::addFiniteFour(acc, as, bs, n, flat0)) {
        // No vector unit for it (or not allowed): the call did nothing, and
        // callers add one by one.
        requireSame(lanes[0], GapAccumulator{});
        SUCCEED("no AVX2 path");
        return;
    }
    for (std::size_t j = 0; j < 4; ++j)
        requireSame(lanes[j], elementByElement(as[j], bs[j], n, flat0[j]));

    // float32 read in place, misaligned by one byte.
    std::vector<std::vector<std::uint8_t>> af(4), bf(4);
    GapAccumulator floats[4];
    GapAccumulator* facc[4] = {&floats[0], &floats[1], &floats[2], &floats[3]};
    const std::uint8_t* ap[4];
    const std::uint8_t* bp[4];
    std::vector<std::vector<double>> ad(4), bd(4);
    for (std::size_t j = 0; j < 4; ++j) {
        af[j].resize(1 + n * sizeof(float));
        bf[j].resize(1 + n * sizeof(float));
        for (std::size_t i = 0; i < n; ++i) {
            const auto x = static_cast<float>(a[j][i]), y = static_cast<float>(b[j][i]);
            std::memcpy(af[j].data() + 1 + i * sizeof(float), &x, sizeof x);
            std::memcpy(bf[j].data() + 1 + i * sizeof(float), &y, sizeof y);
            ad[j].push_back(x);
            bd[j].push_back(y);
        }
        ap[j] = af[j].data() + 1;
        bp[j] = bf[j].data() + 1;
    }
    REQUIRE(GapAccumulator::addFiniteFourFloat(facc, ap, bp, n, flat0));
    for (std::size_t j = 0; j < 4; ++j)
        requireSame(floats[j], elementByElement(ad[j].data(), bd[j].data(), n, flat0[j]));
}

TEST_CASE("computeGap on a multi-chunk tensor equals the chunked element-by-element reduction",
          "[metrics][accumulator]") {
    // Four chunks of 2^20, the last one short and odd-sized: one group of lanes
    // with a remainder per chunk.
    const std::size_t n = (3u << 20) + 700001;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    std::vector<float> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = normal(rng);
        b[i] = a[i] + (i % 5 == 0 ? 1e-2f : 1e-4f) * normal(rng);
    }
    const auto operand = [n](const std::vector<float>& v) {
        return Operand::tensor(ScalarType::Float, {static_cast<std::int64_t>(n)},
                               {reinterpret_cast<const std::uint8_t*>(v.data()), n * sizeof(float)}, n);
    };
    GapAccumulator reference;
    std::vector<double> ad, bd;
    for (std::size_t first = 0; first < n; first += 1u << 20) {
        const std::size_t count = std::min<std::size_t>(n - first, 1u << 20);
        ad.assign(a.begin() + static_cast<std::ptrdiff_t>(first),
                  a.begin() + static_cast<std::ptrdiff_t>(first + count));
        bd.assign(b.begin() + static_cast<std::ptrdiff_t>(first),
                  b.begin() + static_cast<std::ptrdiff_t>(first + count));
        reference.merge(elementByElement(ad.data(), bd.data(), count, first));
    }
    const Path path(GENERATE(Wide, Avx2, Baseline));
    for (unsigned threads : {1u, 2u}) {
        GapOptions options;
        options.threads = threads;
        const auto r = computeGap(operand(a), operand(b), options);
        REQUIRE(r.metrics);
        const double count = static_cast<double>(n);
        CHECK(same(r.metrics->mse, reference.d2.value() / count));
        CHECK(same(r.metrics->l1, reference.d1.value()));
        CHECK(same(r.metrics->cosine, reference.ab.value() / (std::sqrt(reference.a2.value()) *
                                                              std::sqrt(reference.b2.value()))));
        CHECK(same(r.metrics->max_abs, reference.maxAbs));
        CHECK(r.metrics->max_abs_index ==
              std::vector<std::int64_t>{static_cast<std::int64_t>(reference.maxAt)});
    }
}

TEST_CASE("a sum past the float64 range is not finite, so the exact path takes over",
          "[metrics][accumulator]") {
    const double a[] = {1e154, 1.0}, b[] = {-1e154, 2.0}; // d² = 4e308 overflows though a², b² do not
    GapAccumulator acc;
    acc.addFinite(a, b, 2, 0);
    CHECK_FALSE(acc.allFinite());
    const double big[] = {1e200}, zero[] = {0};
    GapAccumulator squares;
    squares.addFinite(big, zero, 1, 0);
    CHECK_FALSE(squares.allFinite());
    const double nan[] = {std::nan("")};
    GapAccumulator withNan;
    withNan.addFinite(nan, zero, 1, 0);
    CHECK_FALSE(withNan.allFinite());
}
