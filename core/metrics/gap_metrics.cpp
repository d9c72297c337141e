#include "core/metrics/gap_metrics.h"

#include "core/common/parallel.h"
#include "core/etdump/element_decode.h"
#include "core/metrics/finite_pass.h"
#include "core/metrics/gap_accumulator.h"
#include "core/metrics/top_k.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace gapscope {

namespace {

constexpr std::size_t kBlock = kGapBlock;

struct NanScan {
    std::uint64_t nan = 0, inf = 0;
};

constexpr std::uint64_t kScanChunk = 1u << 20;

NanScan scan(const Operand& o, unsigned threads, const std::atomic<bool>* cancelled) {
    const auto chunks = static_cast<std::size_t>((o.numel + kScanChunk - 1) / kScanChunk);
    std::vector<NanScan> partial(chunks);
    parallelFor(
        chunks,
        [&](std::size_t c) {
            const std::uint64_t end = std::min<std::uint64_t>(o.numel, (c + 1) * kScanChunk);
            std::vector<double> buf(gapBlockFor(end - c * kScanChunk));
            NanScan local;
            if (gapCancelled(cancelled))
                return;
            for (std::uint64_t first = c * kScanChunk; first < end; first += kBlock) {
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - first));
                o.decode(first, n, buf.data());
                for (std::size_t i = 0; i < n; ++i) {
                    local.nan += std::isnan(buf[i]) ? 1 : 0;
                    local.inf += std::isinf(buf[i]) ? 1 : 0;
                }
            }
            partial[c] = local;
        },
        threads);
    NanScan r;
    for (const auto& p : partial) {
        r.nan += p.nan;
        r.inf += p.inf;
    }
    return r;
}

// torch.nan_to_num, applied by ExecuTorch only when a tensor holds a NaN.
double nanToNum(double x) {
    if (std::isnan(x))
        return 0.0;
    if (std::isinf(x))
        return x > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
    return x;
}

// Large contiguous tensors are reduced in fixed-size chunks on several threads.
constexpr std::uint64_t kChunk = kGapChunk;

// The metrics from the sums, and the top-k agreement of logits-shaped outputs.
void finish(GapMetrics& m, const GapAccumulator& acc, const std::vector<GapAccumulator>& channels,
            std::uint64_t total, const std::vector<std::int64_t>& out, std::optional<std::size_t> breakdown,
            const Operand& aot, const Operand& runtime, const GapOptions& options) {
    const auto& tf = options.runtime_transform;
    const double n = static_cast<double>(total);
    for (const auto& ch : channels) {
        const double per = breakdown ? n / static_cast<double>(out[*breakdown]) : n;
        const double cd2 = ch.d2.value(), ca2 = ch.a2.value();
        m.per_channel.push_back(
            {cd2 / per, std::max(0.0, ch.maxAbs), 10.0 * std::log10((ca2 / per) / (cd2 / per))});
    }
    const double d2 = acc.d2.value(), a2 = acc.a2.value(), b2 = acc.b2.value();
    m.mse = d2 / n;
    m.l1 = acc.d1.value();
    m.snr = 10.0 * std::log10((a2 / n) / (d2 / n));
    m.mean_abs = m.l1 / n;
    m.max_abs = total > 0 && !(acc.maxAbs < 0) ? acc.maxAbs : 0; // -1: every position agreed
    if (total > 0)
        m.max_abs_index = unravelIndex(acc.maxAt, out);
    m.rel_l2 =
        a2 > 0 ? std::sqrt(d2) / std::sqrt(a2) : (d2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    const double norms = std::sqrt(a2) * std::sqrt(b2);
    m.cosine = norms > 0 ? acc.ab.value() / norms : (a2 == 0 && b2 == 0 ? 1.0 : 0.0);
    m.sqnr = 20.0 * std::log10(std::sqrt(a2) / std::sqrt(d2));
    const std::optional<double> step =
        options.step
            ? options.step
            : (tf.dequantizes() && tf.scale.size() == 1 ? std::optional<double>(tf.scale[0]) : std::nullopt);
    if (step && *step > 0) {
        m.rmse_steps = std::sqrt(m.mse) / *step;
        m.max_abs_steps = m.max_abs / *step;
    }
    if (options.qmin && options.qmax && total > 0)
        m.saturation = static_cast<double>(acc.saturated) / n;

    // Top-k agreement along the last dimension for logits-shaped float outputs.
    // (rank ≥ 2: a batch of rows; a flat vector or a huge last dimension is not logits.)
    if (!aot.is_scalar && aot.numel == total && runtime.numel == total && !tf.axis_order && out.size() >= 2 &&
        out.back() >= 2 && out.back() <= (1 << 20) && total > 0) {
        const auto info = scalarTypeInfo(static_cast<std::int8_t>(aot.type));
        if (info && info->isFloatingPoint) {
            const auto row = static_cast<std::size_t>(out.back());
            const std::uint64_t rows = total / row;
            std::vector<double> ra(row), rb(row);
            std::vector<std::size_t> ia(row), ib(row);
            std::uint64_t top1 = 0, top5 = 0;
            // float32 on both sides, undequantised and aligned: ranked in place.
            const bool inPlace = aot.type == ScalarType::Float && runtime.type == ScalarType::Float &&
                                 !tf.dequantizes() &&
                                 reinterpret_cast<std::uintptr_t>(aot.bytes.data) % 4 == 0 &&
                                 reinterpret_cast<std::uintptr_t>(runtime.bytes.data) % 4 == 0;
            for (std::uint64_t r = 0; r < rows; ++r) {
                const std::size_t k = std::min<std::size_t>(5, row);
                std::size_t ta[5], tb[5];
                if (inPlace &&
                    topKFloat(reinterpret_cast<const float*>(aot.bytes.data) + r * row, row, k, ta) &&
                    topKFloat(reinterpret_cast<const float*>(runtime.bytes.data) + r * row, row, k, tb)) {
                    top1 += ta[0] == tb[0] ? 1 : 0;
                    std::sort(ta, ta + k);
                    std::sort(tb, tb + k);
                    top5 += std::equal(ta, ta + k, tb) ? 1 : 0;
                    continue;
                }
                // A row holding a NaN, or other dtypes: decoded, and ranked by the
                // comparison sort that orders NaN as it always has.
                aot.decode(r * row, row, ra.data());
                runtime.decode(r * row, row, rb.data());
                if (tf.dequantizes())
                    for (auto& v : rb)
                        v = dequantize(tf, v, 0);
                const bool nan = std::any_of(ra.begin(), ra.end(), [](double x) { return std::isnan(x); }) ||
                                 std::any_of(rb.begin(), rb.end(), [](double x) { return std::isnan(x); });
                if (!nan) {
                    topK(ra.data(), row, k, ta);
                    topK(rb.data(), row, k, tb);
                    top1 += ta[0] == tb[0] ? 1 : 0;
                    std::sort(ta, ta + k);
                    std::sort(tb, tb + k);
                    top5 += std::equal(ta, ta + k, tb) ? 1 : 0;
                    continue;
                }
                std::iota(ia.begin(), ia.end(), 0);
                std::iota(ib.begin(), ib.end(), 0);
                auto byA = [&](std::size_t x, std::size_t y) {
                    return ra[x] > ra[y] || (ra[x] == ra[y] && x < y);
                };
                auto byB = [&](std::size_t x, std::size_t y) {
                    return rb[x] > rb[y] || (rb[x] == rb[y] && x < y);
                };
                std::partial_sort(ia.begin(), ia.begin() + static_cast<std::ptrdiff_t>(k), ia.end(), byA);
                std::partial_sort(ib.begin(), ib.begin() + static_cast<std::ptrdiff_t>(k), ib.end(), byB);
                top1 += ia[0] == ib[0] ? 1 : 0;
                std::sort(ia.begin(), ia.begin() + static_cast<std::ptrdiff_t>(k));
                std::sort(ib.begin(), ib.begin() + static_cast<std::ptrdiff_t>(k));
                top5 +=
                    std::equal(ia.begin(), ia.begin() + static_cast<std::ptrdiff_t>(k), ib.begin()) ? 1 : 0;
            }
            m.top1_agreement = static_cast<double>(top1) / static_cast<double>(rows);
            if (row >= 5)
                m.top5_agreement = static_cast<double>(top5) / static_cast<double>(rows);
        }
    }
}

bool breakdownRequested(const GapOptions& options) {
    return options.breakdown_axis.has_value();
}

} // namespace

GapResult computeGap(const Operand& aot, const Operand& runtime, const GapOptions& options) {
    GapResult result;
    // A tensor view must hold its elements' bytes: never read past a span.
    for (const auto& [side, o] :
         {std::pair<const char*, const Operand*>{"reference", &aot}, {"runtime", &runtime}}) {
        const auto needed = o->is_scalar ? std::optional<std::uint64_t>(0)
                                         : storageBytes(static_cast<std::int8_t>(o->type), o->numel);
        if (!needed || o->bytes.size < *needed) {
            result.problem = std::string("the ") + side + " tensor holds " + std::to_string(o->bytes.size) +
                             " bytes, fewer than its " + std::to_string(o->numel) + " elements need";
            return result;
        }
    }
    const auto& tf = options.runtime_transform;

    // The runtime tensor's shape in the reference layout.
    std::vector<std::int64_t> rtShape = runtime.shape;
    std::vector<std::uint64_t> rtStridesRef; // stride of each reference dim in runtime storage
    const auto rtStrides = rowMajorStrides(runtime.shape);
    if (tf.axis_order && !runtime.is_scalar) {
        const auto& p = *tf.axis_order;
        if (p.size() != runtime.shape.size()) {
            result.problem = "axis_order has " + std::to_string(p.size()) +
                             " axes but the runtime tensor has rank " + std::to_string(runtime.shape.size());
            return result;
        }
        rtShape.assign(p.size(), 0);
        rtStridesRef.assign(p.size(), 0);
        for (std::size_t j = 0; j < p.size(); ++j) {
            rtShape[static_cast<std::size_t>(p[j])] = runtime.shape[j];
            rtStridesRef[static_cast<std::size_t>(p[j])] = rtStrides[j];
        }
    } else {
        rtStridesRef = rtStrides;
    }

    // Broadcast like torch: right-aligned, each pair equal or 1.
    const auto& aShape = aot.shape;
    const std::size_t rank = std::max(aShape.size(), rtShape.size());
    std::vector<std::int64_t> out(rank, 1);
    std::vector<std::uint64_t> aStep(rank, 0), bStep(rank, 0);
    const auto aStrides = rowMajorStrides(aShape);
    bool broadcast = aShape.size() != rtShape.size();
    for (std::size_t k = 0; k < rank; ++k) {
        const std::size_t d = rank - 1 - k;
        const std::int64_t ad = k < aShape.size() ? aShape[aShape.size() - 1 - k] : 1;
        const std::int64_t bd = k < rtShape.size() ? rtShape[rtShape.size() - 1 - k] : 1;
        if (ad != bd && ad != 1 && bd != 1) {
            result.problem = "shapes do not broadcast: reference dimension " + std::to_string(ad) +
                             " against runtime dimension " + std::to_string(bd);
            return result;
        }
        broadcast = broadcast || ad != bd;
        out[d] = std::max(ad, bd);
        if (ad == 0 || bd == 0)
            out[d] = 0;
        if (k < aShape.size() && ad != 1)
            aStep[d] = aStrides[aShape.size() - 1 - k];
        if (k < rtShape.size() && bd != 1)
            bStep[d] = rtStridesRef[rtShape.size() - 1 - k];
    }
    std::uint64_t total = 1;
    for (auto e : out)
        total *= static_cast<std::uint64_t>(e);

    if (tf.dequantizes()) {
        if (tf.axis && (*tf.axis < 0 || static_cast<std::size_t>(*tf.axis) >= rtShape.size())) {
            result.problem = "per-channel axis " + std::to_string(*tf.axis) + " is outside the tensor's rank";
            return result;
        }
        if (tf.axis &&
            static_cast<std::size_t>(rtShape[static_cast<std::size_t>(*tf.axis)]) != tf.scale.size()) {
            result.problem = std::to_string(tf.scale.size()) + " per-channel scales for " +
                             std::to_string(rtShape[static_cast<std::size_t>(*tf.axis)]) + " channels";
            return result;
        }
    }

    const bool contiguous =
        !broadcast && !tf.axis_order && !tf.axis && aot.numel == total && runtime.numel == total;
    // The common case first: every value finite, no breakdown. One pass, no NaN
    // scan; a non-finite value sends the pair down the general path below.
    if (contiguous && !breakdownRequested(options)) {
        std::optional<GapAccumulator> fast = finitePass(aot, runtime, total, options);
        if (gapCancelled(options.cancelled)) {
            result.problem = "cancelled";
            return result;
        }
        if (fast) {
            GapMetrics m;
            m.elements = total;
            m.compared_shape = out;
            finish(m, *fast, {}, total, out, std::nullopt, aot, runtime, options);
            result.metrics = std::move(m);
            return result;
        }
    }

    const NanScan aScan = scan(aot, options.threads, options.cancelled),
                  bScan = scan(runtime, options.threads, options.cancelled);
    const bool aFix = aScan.nan > 0, bFix = bScan.nan > 0;

    GapMetrics m;
    m.nan_aot = aScan.nan;
    m.inf_aot = aScan.inf;
    m.nan_runtime = bScan.nan;
    m.inf_runtime = bScan.inf;
    m.elements = total;
    m.broadcast = broadcast;
    m.compared_shape = out;

    // Reference-layout channel index of the runtime element, for per-channel scales.
    const std::size_t axisDim = tf.axis ? rank - rtShape.size() + static_cast<std::size_t>(*tf.axis)
                                        : std::numeric_limits<std::size_t>::max();

    auto visit = [&](GapAccumulator& acc, std::uint64_t flat, double a, double qb, std::size_t channel) {
        double b = qb;
        if (tf.dequantizes())
            b = dequantize(tf, qb, channel);
        // Clipped: the device sits at a limit and the reference lies more than half a
        // step beyond what that limit represents (a ReLU's zeros at qmin are not).
        if (options.qmin && options.qmax && tf.dequantizes()) {
            const double half = 0.5 * std::fabs(tf.scale[channel]);
            if ((qb == static_cast<double>(*options.qmin) && a < b - half) ||
                (qb == static_cast<double>(*options.qmax) && a > b + half))
                ++acc.saturated;
        }
        if (aFix)
            a = nanToNum(a);
        if (bFix)
            b = nanToNum(b);
        // The same infinity on both sides (a causal mask's -inf) is agreement, not an
        // undefined difference; ExecuTorch's comparators make it NaN.
        if (!options.executorch_semantics && std::isinf(a) && a == b) {
            ++acc.agreeing;
            return;
        }
        const double d = a - b;
        acc.d2.add(d * d);
        acc.d1.add(std::fabs(d));
        acc.a2.add(a * a);
        acc.b2.add(b * b);
        acc.ab.add(a * b);
        // A NaN difference (Inf − Inf) makes the maximum undefined; keep the first.
        if (std::isnan(d)) {
            if (!std::isnan(acc.maxAbs)) {
                acc.maxAbs = d;
                acc.maxAt = flat;
            }
        } else if (std::fabs(d) > acc.maxAbs) {
            acc.maxAbs = std::fabs(d);
            acc.maxAt = flat;
        }
    };

    std::optional<std::size_t> breakdown;
    if (options.breakdown_axis) {
        const auto axis = *options.breakdown_axis < 0
                              ? *options.breakdown_axis + static_cast<std::int64_t>(rank)
                              : *options.breakdown_axis;
        if (axis < 0 || axis >= static_cast<std::int64_t>(rank)) {
            result.problem = "breakdown axis " + std::to_string(*options.breakdown_axis) +
                             " is outside rank " + std::to_string(rank);
            return result;
        }
        breakdown = static_cast<std::size_t>(axis);
    }
    std::vector<GapAccumulator> channels(breakdown ? static_cast<std::size_t>(out[*breakdown]) : 0);

    GapAccumulator acc;
    if (contiguous && breakdown) {
        // Same shapes with a breakdown: stream the blocks once, the channel of a
        // flat index being (flat / inner) % channels.
        std::uint64_t inner = 1;
        for (std::size_t d = *breakdown + 1; d < rank; ++d)
            inner *= static_cast<std::uint64_t>(out[d]);
        const auto count = static_cast<std::uint64_t>(out[*breakdown]);
        std::vector<double> ab(gapBlockFor(total)), bb(gapBlockFor(total));
        for (std::uint64_t first = 0; first < total && !gapCancelled(options.cancelled); first += kBlock) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, total - first));
            aot.decode(first, n, ab.data());
            runtime.decode(first, n, bb.data());
            for (std::size_t i = 0; i < n; ++i) {
                visit(acc, first + i, ab[i], bb[i], 0);
                visit(channels[static_cast<std::size_t>(((first + i) / inner) % count)], first + i, ab[i],
                      bb[i], 0);
            }
        }
    } else if (contiguous) {
        const auto chunks = static_cast<std::size_t>((total + kChunk - 1) / kChunk);
        std::vector<GapAccumulator> partial(chunks);
        parallelFor(
            chunks,
            [&](std::size_t c) {
                // A local accumulator: neighbours in `partial` share cache lines.
                GapAccumulator local;
                const std::uint64_t begin = c * kChunk, end = std::min<std::uint64_t>(total, begin + kChunk);
                std::vector<double> ab(gapBlockFor(end - begin)), bb(gapBlockFor(end - begin));
                if (gapCancelled(options.cancelled))
                    return;
                for (std::uint64_t first = begin; first < end; first += kBlock) {
                    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - first));
                    aot.decode(first, n, ab.data());
                    runtime.decode(first, n, bb.data());
                    for (std::size_t i = 0; i < n; ++i)
                        visit(local, first + i, ab[i], bb[i], 0);
                }
                partial[c] = local;
            },
            options.threads);
        for (const auto& p : partial)
            acc.merge(p);
    } else {
        std::vector<std::int64_t> idx(rank, 0);
        std::uint64_t aAt = 0, bAt = 0;
        for (std::uint64_t flat = 0; flat < total; ++flat) {
            if (flat % (16 * kBlock) == 0 && gapCancelled(options.cancelled))
                break;
            double a = 0, qb = 0;
            aot.decode(aot.is_scalar ? 0 : aAt, 1, &a);
            runtime.decode(runtime.is_scalar ? 0 : bAt, 1, &qb);
            const std::size_t channel = axisDim < rank ? static_cast<std::size_t>(idx[axisDim]) : 0;
            visit(acc, flat, a, qb, channel);
            if (breakdown)
                visit(channels[static_cast<std::size_t>(idx[*breakdown])], flat, a, qb, channel);
            // Odometer increment over the compared shape.
            for (std::size_t d = rank; d-- > 0;) {
                if (++idx[d] < out[d]) {
                    aAt += aStep[d];
                    bAt += bStep[d];
                    break;
                }
                aAt -= aStep[d] * static_cast<std::uint64_t>(out[d] - 1);
                bAt -= bStep[d] * static_cast<std::uint64_t>(out[d] - 1);
                idx[d] = 0;
            }
        }
    }

    if (gapCancelled(options.cancelled)) {
        result.problem = "cancelled";
        return result;
    }
    m.agreeing_infinities = acc.agreeing;
    finish(m, acc, channels, total, out, breakdown, aot, runtime, options);
    result.metrics = m;
    return result;
}

} // namespace gapscope
