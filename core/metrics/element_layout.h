#pragma once

#include "core/metrics/operand.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace gapscope {

// Which runtime element a reference element is compared with: the runtime tensor
// read back into the reference layout (axis_order), then broadcast against the
// reference like torch (right-aligned, each pair of extents equal or 1), and the
// channel of each position for per-channel scales. The metrics stream every
// position through it and the views read single positions through it, so the two
// can never pair elements differently.
class ElementLayout {
public:
    // A problem in words when the tensors cannot be paired: an axis_order that is
    // not a permutation of the runtime's axes, shapes that do not broadcast, or
    // per-channel scales that do not fit the channel axis.
    static std::variant<ElementLayout, std::string> of(const Operand& reference, const Operand& runtime,
                                                       const OperandTransform& transform);

    struct Position {
        std::uint64_t reference = 0, runtime = 0; // element indices in each side's storage
        std::size_t channel = 0;                  // along the per-channel axis, else 0
    };

    const std::vector<std::int64_t>& shape() const { return m_out; } // the compared (broadcast) shape
    std::uint64_t total() const { return m_total; }
    bool broadcast() const { return m_broadcast; }
    // The compared shape is the reference's, and each position reads one runtime
    // element of its own: views can show the runtime in the reference's layout.
    bool elementForElement(const Operand& reference, const Operand& runtime) const;

    Position at(std::uint64_t flat) const;

    // Calls f(flat, position) for every compared position in row-major order,
    // without a division per element. Stops early, returning false, once
    // `cancelled` is set (read every `checkEvery` positions).
    template <class F>
    bool forEach(F&& f, const std::atomic<bool>* cancelled, std::uint64_t checkEvery) const;

private:
    std::vector<std::int64_t> m_out;
    std::vector<std::uint64_t> m_refStep, m_rtStep; // per compared dim; 0 where broadcast
    std::size_t m_axisDim = std::numeric_limits<std::size_t>::max();
    std::uint64_t m_total = 1;
    bool m_broadcast = false;
};

template <class F>
bool ElementLayout::forEach(F&& f, const std::atomic<bool>* cancelled, std::uint64_t checkEvery) const {
    const std::size_t rank = m_out.size();
    std::vector<std::int64_t> idx(rank, 0);
    Position p;
    for (std::uint64_t flat = 0; flat < m_total; ++flat) {
        if (flat % checkEvery == 0 && cancelled && cancelled->load(std::memory_order_relaxed))
            return false;
        p.channel = m_axisDim < rank ? static_cast<std::size_t>(idx[m_axisDim]) : 0;
        f(flat, p);
        // Odometer increment over the compared shape.
        for (std::size_t d = rank; d-- > 0;) {
            if (++idx[d] < m_out[d]) {
                p.reference += m_refStep[d];
                p.runtime += m_rtStep[d];
                break;
            }
            p.reference -= m_refStep[d] * static_cast<std::uint64_t>(m_out[d] - 1);
            p.runtime -= m_rtStep[d] * static_cast<std::uint64_t>(m_out[d] - 1);
            idx[d] = 0;
        }
    }
    return true;
}

} // namespace gapscope
