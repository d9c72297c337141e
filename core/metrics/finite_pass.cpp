#include "core/metrics/finite_pass.h"

#include "core/common/parallel.h"
#include "core/metrics/element_rule.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace gapscope {

namespace {

constexpr std::size_t kBlock = kGapBlock;
constexpr std::uint64_t kChunk = kGapChunk;

// The runtime block in reference units (a per-tensor dequantisation), counting
// clipped elements by the general path's rule. Every value here is finite, so
// the rule replaces none.
void dequantizeBlock(const GapOptions& options, const double* a, double* b, std::size_t n,
                     GapAccumulator& acc) {
    if (!options.runtime_transform.dequantizes())
        return;
    const ElementRule rule(options, false, false);
    for (std::size_t i = 0; i < n; ++i) {
        const ComparedPair p = rule(a[i], b[i], 0);
        b[i] = p.runtime;
        acc.saturated += p.clipped ? 1 : 0;
    }
}

} // namespace

// Same-shape pairs with no transform but a per-tensor dequantisation: one
// pass of GapAccumulator::addFinite per chunk, on every thread, four chunks at
// a time in the lanes of one vector where the machine has them. Empty when a
// value is not finite (the general path then counts and converts them).
std::optional<GapAccumulator> finitePass(const Operand& aot, const Operand& runtime, std::uint64_t total,
                                         const GapOptions& options, const BlockDone& blockDone) {
    const auto& tf = options.runtime_transform;
    if (tf.dequantizes() && (tf.scale.size() != 1 || tf.zero_point.size() != 1))
        return std::nullopt;
    const auto chunks = static_cast<std::size_t>((total + kChunk - 1) / kChunk);
    std::vector<GapAccumulator> partial(chunks);
    constexpr std::size_t kLanes = 4, kLaneBlock = kBlock;
    // float32 on both sides, untransformed: the lanes read the tensors in place.
    const bool bothFloat = aot.type == ScalarType::Float && runtime.type == ScalarType::Float &&
                           !aot.is_scalar && !runtime.is_scalar && !tf.dequantizes();
    parallelFor(
        (chunks + kLanes - 1) / kLanes,
        [&](std::size_t group) {
            const std::size_t c0 = group * kLanes, lanes = std::min(kLanes, chunks - c0);
            // Local accumulators: neighbours in `partial` share cache lines.
            std::array<GapAccumulator, kLanes> local;
            std::array<std::uint64_t, kLanes> begin{}, end{};
            for (std::size_t j = 0; j < lanes; ++j) {
                begin[j] = (c0 + j) * kChunk;
                end[j] = std::min<std::uint64_t>(total, begin[j] + kChunk);
            }
            // A block of each side a lane, no longer than the longest chunk.
            const std::size_t block = gapBlockFor(end[0] - begin[0]);
            // Made when a block must be decoded: float32 read in place needs
            // none (zeroing 256 KiB a tensor was 3% of an LLM session's compare).
            std::vector<double> buffer;
            const auto decoded = [&] {
                if (buffer.empty())
                    buffer.resize(2 * kLanes * block);
                return buffer.data();
            };
            const auto aBuf = [&](std::size_t j) { return decoded() + 2 * j * block; };
            const auto bBuf = [&](std::size_t j) { return decoded() + (2 * j + 1) * block; };
            // Elements [from, to) of each chunk's own range go through the lanes
            // together when there are four, else one chunk after the other.
            std::uint64_t common = 0;
            if (lanes == kLanes) {
                common = kChunk;
                for (std::size_t j = 0; j < lanes; ++j)
                    common = std::min(common, end[j] - begin[j]);
            }
            for (std::uint64_t off = 0; off < common; off += kLaneBlock) {
                if (gapCancelled(options.cancelled))
                    return;
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kLaneBlock, common - off));
                GapAccumulator* accs[kLanes];
                std::uint64_t flat0[kLanes];
                for (std::size_t j = 0; j < kLanes; ++j) {
                    accs[j] = &local[j];
                    flat0[j] = begin[j] + off;
                }
                if (bothFloat) {
                    const std::uint8_t* as[kLanes];
                    const std::uint8_t* bs[kLanes];
                    for (std::size_t j = 0; j < kLanes; ++j) {
                        as[j] = aot.bytes.data + flat0[j] * sizeof(float);
                        bs[j] = runtime.bytes.data + flat0[j] * sizeof(float);
                    }
                    if (GapAccumulator::addFiniteFourFloat(accs, as, bs, n, flat0))
                        continue;
                }
                const double* as[kLanes];
                const double* bs[kLanes];
                for (std::size_t j = 0; j < kLanes; ++j) {
                    aot.decode(flat0[j], n, aBuf(j));
                    runtime.decode(flat0[j], n, bBuf(j));
                    dequantizeBlock(options, aBuf(j), bBuf(j), n, local[j]);
                    as[j] = aBuf(j);
                    bs[j] = bBuf(j);
                }
                if (!GapAccumulator::addFiniteFour(accs, as, bs, n, flat0))
                    for (std::size_t j = 0; j < kLanes; ++j)
                        local[j].addFinite(as[j], bs[j], n, flat0[j]);
            }
            for (std::size_t j = 0; j < lanes; ++j) {
                for (std::uint64_t first = begin[j] + common; first < end[j]; first += kBlock) {
                    if (gapCancelled(options.cancelled))
                        return;
                    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end[j] - first));
                    // A chunk alone (most tensors of a model are one) reads
                    // float32 in place too: a tenth of comparing a ViT.
                    if (!bothFloat ||
                        !local[j].addFiniteFloat(aot.bytes.data + first * sizeof(float),
                                                 runtime.bytes.data + first * sizeof(float), n, first)) {
                        aot.decode(first, n, aBuf(0));
                        runtime.decode(first, n, bBuf(0));
                        dequantizeBlock(options, aBuf(0), bBuf(0), n, local[j]);
                        local[j].addFinite(aBuf(0), bBuf(0), n, first);
                    }
                    if (blockDone && chunks < kLanes) // one group: the calling thread, in order
                        blockDone(first + n);
                }
                partial[c0 + j] = local[j];
            }
        },
        options.threads);
    GapAccumulator acc;
    for (const auto& p : partial)
        acc.merge(p);
    if (!acc.allFinite())
        return std::nullopt;
    return acc;
}

} // namespace gapscope
