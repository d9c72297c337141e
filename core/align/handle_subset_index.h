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
    // The same into `out` (cleared first). Once `out` and the calling thread's
    // scratch have grown, nothing is allocated: opening 50,000 ops asks this
    // twice a row, and two small vectors a call were a tenth of planning rows.
    void subsetsOf(const std::vector<std::int64_t>& target, std::vector<std::size_t>& out) const;

private:
    std::vector<const std::vector<std::int64_t>*> m_tuples;
    HandlePostings m_byHandle;
    std::vector<std::size_t> m_empty;
    // Per tuple, whether it holds one handle: found under a handle of the
    // target, it is within it, read without following its pointer (nearly
    // every tuple; two cache misses a row, asked twice a row on opening).
    std::vector<bool> m_single;
};

} // namespace gapscope
