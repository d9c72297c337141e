#include "core/metrics/gap_lanes.h"

#include "core/metrics/finite_pass.h"
#include "core/metrics/gap_accumulator.h"
#include "core/metrics/gap_finish.h"
#include "core/metrics/top_k_agreement.h"

#include <algorithm>
#include <array>
#include <optional>

namespace gapscope {

namespace {

constexpr std::size_t kLanes = 4;

bool anyCancelled(const std::array<const GapOptions*, kLanes>& options) {
    return std::any_of(options.begin(), options.end(),
                       [](const GapOptions* o) { return gapCancelled(o->cancelled); });
}

// Four pairs that fit the lanes, as computeGap's common case measures each
// (finitePass on one chunk, then finishGap): the same sums in the same order
// per lane, the same ranking of rows as blocks complete.
void measureFour(const std::vector<GapPair>& pairs, const std::size_t* which, std::vector<GapResult>& out) {
    std::array<const Operand*, kLanes> a{}, b{};
    std::array<const GapOptions*, kLanes> options{};
    std::array<std::uint64_t, kLanes> total{};
    for (std::size_t j = 0; j < kLanes; ++j) {
        a[j] = pairs[which[j]].aot;
        b[j] = pairs[which[j]].runtime;
        options[j] = pairs[which[j]].options;
        total[j] = a[j]->numel;
    }
    const auto alone = [&](std::size_t j) { out[which[j]] = computeGap(*a[j], *b[j], *options[j]); };
    const auto cancelled = [&] {
        for (std::size_t j = 0; j < kLanes; ++j)
            out[which[j]].problem = "cancelled";
    };
    std::array<std::optional<TopKAgreement>, kLanes> ranks;
    for (std::size_t j = 0; j < kLanes; ++j)
        ranks[j].emplace(*a[j], *b[j], total[j], a[j]->shape(), options[j]->runtime_transform);
    const auto ranked = [&](std::size_t j, std::uint64_t end) {
        if (ranks[j]->wanted())
            ranks[j]->rankThrough(end);
    };
    const auto at = [](const Operand* o, std::uint64_t first) {
        return o->bytes.data + first * sizeof(float);
    };

    std::array<GapAccumulator, kLanes> local;
    const std::uint64_t common = *std::min_element(total.begin(), total.end());
    for (std::uint64_t off = 0; off < common; off += kGapBlock) {
        if (anyCancelled(options))
            return cancelled();
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kGapBlock, common - off));
        GapAccumulator* accs[kLanes];
        const std::uint8_t* as[kLanes];
        const std::uint8_t* bs[kLanes];
        std::uint64_t flat0[kLanes];
        for (std::size_t j = 0; j < kLanes; ++j) {
            accs[j] = &local[j];
            as[j] = at(a[j], off);
            bs[j] = at(b[j], off);
            flat0[j] = off;
        }
        if (!GapAccumulator::addFiniteFourFloat(accs, as, bs, n, flat0)) {
            // No vector lanes on this machine (the first block: nothing summed yet).
            for (std::size_t j = 0; j < kLanes; ++j)
                alone(j);
            return;
        }
        for (std::size_t j = 0; j < kLanes; ++j)
            ranked(j, off + n);
    }
    // Each lane's elements past the shortest, alone.
    for (std::size_t j = 0; j < kLanes; ++j)
        for (std::uint64_t first = common; first < total[j]; first += kGapBlock) {
            if (anyCancelled(options))
                return cancelled();
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kGapBlock, total[j] - first));
            local[j].addFiniteFloat(at(a[j], first), at(b[j], first), n, first);
            ranked(j, first + n);
        }
    for (std::size_t j = 0; j < kLanes; ++j) {
        GapAccumulator acc; // merged as finitePass merges its one chunk
        acc.merge(local[j]);
        if (!acc.allFinite()) { // a NaN or an infinity: the general path counts and converts them
            alone(j);
            continue;
        }
        GapMetrics m;
        m.elements = total[j];
        m.compared_shape = a[j]->shape();
        finishGap(m, acc, {}, total[j], m.compared_shape, std::nullopt, *ranks[j], *options[j]);
        out[which[j]].metrics = std::move(m);
    }
}

} // namespace

bool fitsGapLanes(const Operand& aot, const Operand& runtime, const GapOptions& options) {
    const auto& tf = options.runtime_transform;
    if (aot.type != ScalarType::Float || runtime.type != ScalarType::Float || aot.is_scalar ||
        runtime.is_scalar || aot.numel == 0 || aot.numel > kGapChunk || runtime.numel != aot.numel ||
        tf.dequantizes() || tf.axis_order || tf.axis || options.breakdown_axis ||
        aot.bytes.size / sizeof(float) < aot.numel || runtime.bytes.size / sizeof(float) < runtime.numel ||
        aot.shape() != runtime.shape())
        return false;
    // What computeGap's ElementLayout plans for one shape on both sides, read
    // off without planning it (a second planning a pair was measurable on
    // sessions of thousands of small ops): element for element, every one.
    std::uint64_t total = 1;
    for (const auto d : aot.shape()) {
        if (d < 0)
            return false;
        total *= static_cast<std::uint64_t>(d);
    }
    return total == aot.numel;
}

std::vector<GapResult> computeGaps(const std::vector<GapPair>& pairs) {
    std::vector<GapResult> out(pairs.size());
    std::vector<std::size_t> lanes;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        if (fitsGapLanes(*pairs[i].aot, *pairs[i].runtime, *pairs[i].options))
            lanes.push_back(i);
        else
            out[i] = computeGap(*pairs[i].aot, *pairs[i].runtime, *pairs[i].options);
    }
    std::size_t g = 0;
    for (; g + kLanes <= lanes.size(); g += kLanes)
        measureFour(pairs, lanes.data() + g, out);
    for (; g < lanes.size(); ++g)
        out[lanes[g]] = computeGap(*pairs[lanes[g]].aot, *pairs[lanes[g]].runtime, *pairs[lanes[g]].options);
    return out;
}

} // namespace gapscope
