#include "core/align/handle_postings.h"

#include <algorithm>
#include <utility>

namespace gapscope {

HandlePostings::HandlePostings(const std::vector<const std::vector<std::int64_t>*>& tuples,
                               std::size_t base) {
    std::size_t count = 0;
    std::int64_t lo = 0, hi = 0;
    for (const auto* t : tuples)
        for (auto h : *t) {
            lo = count ? std::min(lo, h) : h;
            hi = count ? std::max(hi, h) : h;
            ++count;
        }
    if (!count)
        return;
    // The span as unsigned: hi − lo may not fit a signed 64-bit value.
    const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    m_dense = span < 2 * static_cast<std::uint64_t>(count) + 4096;
    m_indices.resize(count);
    if (m_dense) {
        // A counting sort: slots in handle order, indices ascending within each.
        m_min = lo;
        m_offsets.assign(static_cast<std::size_t>(span) + 2, 0);
        for (const auto* t : tuples)
            for (auto h : *t)
                ++m_offsets[static_cast<std::size_t>(static_cast<std::uint64_t>(h) -
                                                     static_cast<std::uint64_t>(lo)) +
                            1];
        for (std::size_t k = 1; k < m_offsets.size(); ++k)
            m_offsets[k] += m_offsets[k - 1];
        std::vector<std::size_t> next(m_offsets.begin(), m_offsets.end() - 1);
        for (std::size_t i = 0; i < tuples.size(); ++i)
            for (auto h : *tuples[i])
                m_indices[next[static_cast<std::size_t>(static_cast<std::uint64_t>(h) -
                                                        static_cast<std::uint64_t>(lo))]++] = base + i;
        return;
    }
    std::vector<std::pair<std::int64_t, std::size_t>> pairs;
    pairs.reserve(count);
    for (std::size_t i = 0; i < tuples.size(); ++i)
        for (auto h : *tuples[i])
            pairs.emplace_back(h, base + i);
    std::sort(pairs.begin(), pairs.end());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        if (m_keys.empty() || m_keys.back() != pairs[k].first) {
            m_keys.push_back(pairs[k].first);
            m_offsets.push_back(k);
        }
        m_indices[k] = pairs[k].second;
    }
    m_offsets.push_back(pairs.size());
}

HandlePostings::Range HandlePostings::of(std::int64_t handle) const {
    if (m_indices.empty())
        return {};
    std::size_t slot = 0;
    if (m_dense) {
        if (handle < m_min)
            return {};
        const auto k = static_cast<std::uint64_t>(handle) - static_cast<std::uint64_t>(m_min);
        if (k >= m_offsets.size() - 1)
            return {};
        slot = static_cast<std::size_t>(k);
    } else {
        const auto it = std::lower_bound(m_keys.begin(), m_keys.end(), handle);
        if (it == m_keys.end() || *it != handle)
            return {};
        slot = static_cast<std::size_t>(it - m_keys.begin());
    }
    const std::size_t* data = m_indices.data();
    return {data + m_offsets[slot], data + m_offsets[slot + 1]};
}

} // namespace gapscope
