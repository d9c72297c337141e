#include "core/align/handle_subset_index.h"

#include <algorithm>
#include <utility>

namespace gapscope {

bool handlesWithin(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    for (auto x : a)
        if (std::find(b.begin(), b.end(), x) == b.end())
            return false;
    return true;
}

HandleSubsetIndex::HandleSubsetIndex(std::vector<const std::vector<std::int64_t>*> tuples)
    : m_tuples(std::move(tuples)), m_byHandle(m_tuples), m_single(m_tuples.size()) {
    for (std::size_t i = 0; i < m_tuples.size(); ++i) {
        if (m_tuples[i]->empty())
            m_empty.push_back(i);
        m_single[i] = m_tuples[i]->size() == 1;
    }
}

std::vector<std::size_t> HandleSubsetIndex::subsetsOf(const std::vector<std::int64_t>& target) const {
    std::vector<std::size_t> out;
    subsetsOf(target, out);
    return out;
}

void HandleSubsetIndex::subsetsOf(const std::vector<std::int64_t>& target,
                                  std::vector<std::size_t>& out) const {
    thread_local std::vector<std::size_t> candidates;
    candidates.assign(m_empty.begin(), m_empty.end());
    for (auto h : target) {
        const auto with = m_byHandle.of(h);
        candidates.insert(candidates.end(), with.begin(), with.end());
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    out.clear();
    for (auto i : candidates)
        if (m_single[i] || handlesWithin(*m_tuples[i], target)) // a candidate holds a handle of the target
            out.push_back(i);
}

} // namespace gapscope
