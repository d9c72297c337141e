#include "core/metrics/gap_metrics.h"

#include "core/common/parallel.h"
#include "core/etdump/element_decode.h"
#include "core/metrics/element_layout.h"
#include "core/metrics/element_rule.h"
#include "core/metrics/finite_pass.h"
#include "core/metrics/gap_accumulator.h"
#include "core/metrics/gap_finish.h"
#include "core/metrics/top_k_agreement.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <variant>

namespace gapscope {

namespace {

constexpr std::size_t kBlock = kGapBlock;

// Large contiguous tensors are reduced in fixed-size chunks on several threads.
constexpr std::uint64_t kChunk = kGapChunk;

bool breakdownRequested(const GapOptions& options) {
    return options.breakdown_axis.has_value();
}

// A tensor view must hold its elements' bytes: never read past a span.
std::string storageProblem(const Operand& aot, const Operand& runtime) {
    for (const auto& [side, o] :
         {std::pair<const char*, const Operand*>{"reference", &aot}, {"runtime", &runtime}}) {
        const auto needed = o->is_scalar ? std::optional<std::uint64_t>(0)
                                         : storageBytes(static_cast<std::int8_t>(o->type), o->numel);
        if (!needed || o->bytes.size < *needed)
            return std::string("the ") + side + " tensor holds " + std::to_string(o->bytes.size) +
                   " bytes, fewer than its " + std::to_string(o->numel) + " elements need";
    }
    return {};
}

// Adds one compared pair to the sums, after the element rule.
struct AddPair {
    const ElementRule& rule;
    bool executorchSemantics;

    void operator()(GapAccumulator& acc, std::uint64_t flat, double rawA, double q,
                    std::size_t channel) const {
        const ComparedPair p = rule(rawA, q, channel);
        acc.saturated += p.clipped ? 1 : 0;
        const double a = p.reference, b = p.runtime;
        // The same infinity on both sides (a causal mask's -inf) is agreement, not an
        // undefined difference; ExecuTorch's comparators make it NaN.
        if (!executorchSemantics && std::isinf(a) && a == b) {
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
    }
};

// The breakdown axis counted from the front, or the problem with it.
std::variant<std::optional<std::size_t>, std::string> breakdownAxis(const GapOptions& options,
                                                                    std::size_t rank) {
    if (!options.breakdown_axis)
        return std::optional<std::size_t>();
    const auto axis = *options.breakdown_axis < 0 ? *options.breakdown_axis + static_cast<std::int64_t>(rank)
                                                  : *options.breakdown_axis;
    if (axis < 0 || axis >= static_cast<std::int64_t>(rank))
        return "breakdown axis " + std::to_string(*options.breakdown_axis) + " is outside rank " +
               std::to_string(rank);
    return std::optional<std::size_t>(static_cast<std::size_t>(axis));
}

} // namespace

GapResult computeGap(const Operand& aot, const Operand& runtime, const GapOptions& options) {
    GapResult result;
    result.problem = storageProblem(aot, runtime);
    if (!result.problem.empty())
        return result;
    const auto& tf = options.runtime_transform;

    auto planned = ElementLayout::of(aot, runtime, tf);
    if (const auto* problem = std::get_if<std::string>(&planned)) {
        result.problem = *problem;
        return result;
    }
    const auto& layout = std::get<ElementLayout>(planned);
    const auto& out = layout.shape();
    const std::size_t rank = out.size();
    const std::uint64_t total = layout.total();
    const bool broadcast = layout.broadcast();
    TopKAgreement ranks(aot, runtime, total, out, tf);

    const bool contiguous =
        !broadcast && !tf.axis_order && !tf.axis && aot.numel == total && runtime.numel == total;
    // The common case first: every value finite, no breakdown. One pass, no NaN
    // scan; a non-finite value sends the pair down the general path below.
    if (contiguous && !breakdownRequested(options)) {
        // The rows each block completes are ranked while the block is in cache.
        std::optional<GapAccumulator> fast = finitePass(
            aot, runtime, total, options,
            ranks.wanted() ? [&ranks](std::uint64_t end) { ranks.rankThrough(end); } : BlockDone{});
        if (gapCancelled(options.cancelled)) {
            result.problem = "cancelled";
            return result;
        }
        if (fast) {
            GapMetrics m;
            m.elements = total;
            m.compared_shape = out;
            finishGap(m, *fast, {}, total, out, std::nullopt, ranks, options);
            result.metrics = std::move(m);
            return result;
        }
    }

    const NonFiniteCount aScan = countNonFinite(aot, options.threads, options.cancelled),
                         bScan = countNonFinite(runtime, options.threads, options.cancelled);
    const ElementRule rule(options, aScan.nan > 0, bScan.nan > 0);

    GapMetrics m;
    m.nan_aot = aScan.nan;
    m.inf_aot = aScan.inf;
    m.nan_runtime = bScan.nan;
    m.inf_runtime = bScan.inf;
    m.elements = total;
    m.broadcast = broadcast;
    m.compared_shape = out;

    const AddPair visit{rule, options.executorch_semantics};

    const auto axis = breakdownAxis(options, rank);
    if (const auto* problem = std::get_if<std::string>(&axis)) {
        result.problem = *problem;
        return result;
    }
    const std::optional<std::size_t> breakdown = std::get<std::optional<std::size_t>>(axis);
    std::vector<GapAccumulator> channels(breakdown ? static_cast<std::size_t>(out[*breakdown]) : 0);

    // The breakdown index of compared position `flat`: (flat / inner) % count.
    std::uint64_t inner = 1, count = 1;
    if (breakdown) {
        for (std::size_t d = *breakdown + 1; d < rank; ++d)
            inner *= static_cast<std::uint64_t>(out[d]);
        count = std::max<std::uint64_t>(static_cast<std::uint64_t>(out[*breakdown]), 1);
    }

    GapAccumulator acc;
    if (contiguous && breakdown) {
        // Same shapes with a breakdown: stream the blocks once.
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
        layout.forEach(
            [&](std::uint64_t flat, const ElementLayout::Position& at) {
                double a = 0, q = 0;
                aot.decode(aot.is_scalar ? 0 : at.reference, 1, &a);
                runtime.decode(runtime.is_scalar ? 0 : at.runtime, 1, &q);
                visit(acc, flat, a, q, at.channel);
                if (breakdown)
                    visit(channels[static_cast<std::size_t>((flat / inner) % count)], flat, a, q, at.channel);
            },
            options.cancelled, 16 * kBlock);
    }

    if (gapCancelled(options.cancelled)) {
        result.problem = "cancelled";
        return result;
    }
    m.agreeing_infinities = acc.agreeing;
    finishGap(m, acc, channels, total, out, breakdown, ranks, options);
    result.metrics = m;
    return result;
}

} // namespace gapscope
