#pragma once

#include "core/metrics/gap_metrics.h"
#include "core/metrics/operand.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapscope {

// The top-1 and top-5 agreement of logits-shaped outputs (rank ≥ 2, floating
// point, a last dimension of 2 to 2^20 elements): for each row along the last
// dimension, whether both sides rank the same index first, and the same five
// indices highest (docs/metrics.md).
//
// Rows are ranked in element order, in two steps that give the same counts as
// one: finitePass calls rankThrough after each block it decodes, so the rows a
// block completes are ranked while their values are still in cache (a second
// pass over the tensors from memory was an eighth of a ViT-S/16 comparison);
// finish ranks whatever is left, and writes the agreement.
class TopKAgreement {
public:
    TopKAgreement(const Operand& aot, const Operand& runtime, std::uint64_t total,
                  const std::vector<std::int64_t>& shape, const OperandTransform& tf);

    bool wanted() const { return m_rows > 0; }
    // Ranks, as float32 read in place, the rows that end at or before element
    // `end`. A row holding a NaN, or any row of other dtypes, waits for finish.
    void rankThrough(std::uint64_t end);
    // Ranks every row not ranked yet, and writes the agreement into m.
    void finish(GapMetrics& m);

private:
    void rankDecoded(std::uint64_t r);
    void count(const std::size_t* a, const std::size_t* b);

    const Operand& m_aot;
    const Operand& m_runtime;
    const OperandTransform& m_tf;
    std::size_t m_row = 0;    // elements per row
    std::uint64_t m_rows = 0; // 0: nothing to rank
    std::size_t m_k = 0;
    bool m_inPlace = false;
    std::uint64_t m_next = 0; // the first row not ranked in place
    // Per-channel dequantisation: the channel of element e is (e / stride) % size.
    std::uint64_t m_axisStride = 1, m_axisSize = 0;
    std::vector<std::uint64_t> m_deferred;
    std::uint64_t m_top1 = 0, m_top5 = 0;
    std::vector<double> m_decodedA, m_decodedB;
    std::vector<std::size_t> m_orderA, m_orderB;
};

} // namespace gapscope
