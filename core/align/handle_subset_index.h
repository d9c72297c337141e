#pragma once

#include "core/align/handle_postings.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapscope {

// Which of a list of handle tuples lie within a target tuple (every handle in
// it; an empty tuple always does), found through a handle index: a row's op
// names without a scan of every event and record per row. The tuples are
// borrowed: they must outlive the index.
// Every handle of `a` is in `b` (ExecuTorch's subset test; an empty `a` is).
bool handlesWithin(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

class HandleSubsetIndex {
public:
    explicit HandleSubsetIndex(std::vector<const std::vector<std::int64_t>*> tuples);
    // Indices into the list, ascending (the list's order).
    std::vector<std::size_t> subsetsOf(const std::vector<std::int64_t>& target) const;

private:
    std::vector<const std::vector<std::int64_t>*> m_tuples;
    HandlePostings m_byHandle;
    std::vector<std::size_t> m_empty;
};

} // namespace gapscope
