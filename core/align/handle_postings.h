#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapscope {

// For a list of debug-handle tuples, the tuples each handle appears in, as
// ascending indices into the list (a handle twice in one tuple lists it twice).
// Flat arrays instead of a map of vectors: opening a 50,000-op session looks up
// every handle of every row here, and a std::map of 100,000 small vectors cost
// more to build and free than the lookups (docs/performance.md, issue 29).
class HandlePostings {
public:
    struct Range {
        const std::size_t* first = nullptr;
        const std::size_t* last = nullptr;
        const std::size_t* begin() const { return first; }
        const std::size_t* end() const { return last; }
        bool empty() const { return first == last; }
        std::size_t size() const { return static_cast<std::size_t>(last - first); }
    };

    HandlePostings() = default;
    // `tuples[i]` is tuple i; `base` is added to every index (an overlap graph
    // numbers one side's nodes after the other's). The tuples are read here only.
    explicit HandlePostings(const std::vector<const std::vector<std::int64_t>*>& tuples,
                            std::size_t base = 0);

    Range of(std::int64_t handle) const;

private:
    // Dense handles (the usual case: 0 … a little more than the number of ops)
    // are their own slot, handle − m_min; sparse ones are found in m_keys.
    bool m_dense = true;
    std::int64_t m_min = 0;
    std::vector<std::int64_t> m_keys;   // sparse only: the distinct handles, ascending
    std::vector<std::size_t> m_offsets; // slot k's indices are m_indices[m_offsets[k] … m_offsets[k + 1])
    std::vector<std::size_t> m_indices;
};

} // namespace gapscope
