#pragma once

#include <cstdint>
#include <vector>

namespace gapscope {

// A 2-D view of a row-major tensor for a heatmap: two displayed axes, the
// other axes (in order) flattened into a slice index and fixed at one slice.
// Sides longer than `maxSide` show every stride-th element, so drawing never
// blocks on a big tensor. The tensor panel and the A/B tensor panel share it.
struct TensorSlice {
    std::vector<std::int64_t> shape;
    int row_axis = -1, col_axis = -1; // -1: that side of the heatmap has one cell
    std::int64_t rows = 1, cols = 1;  // the displayed axes' extents
    std::int64_t slices = 1;          // how many slices the other axes make
    std::int64_t base = 0;            // flat index of the slice's first element
    std::int64_t row_stride = 0, col_stride = 0;
    int stride = 1;            // every stride-th element is shown
    int width = 0, height = 0; // cells shown

    // Flat index of cell (y, x).
    std::uint64_t flat(int y, int x) const {
        return static_cast<std::uint64_t>(base + static_cast<std::int64_t>(y) * stride * row_stride +
                                          static_cast<std::int64_t>(x) * stride * col_stride);
    }
    // The full coordinates of cell (y, x) in the tensor.
    std::vector<std::int64_t> coordinates(int y, int x) const;
};

// `rowAxis`/`colAxis`: the displayed axes (-1 for none; one axis chosen twice is
// shown as a single row). `slice` is clamped to [0, slices).
TensorSlice sliceTensor(const std::vector<std::int64_t>& shape, int rowAxis, int colAxis, std::int64_t slice,
                        int maxSide);

// The last two axes, as the panels display by default.
inline TensorSlice sliceLastTwo(const std::vector<std::int64_t>& shape, std::int64_t slice, int maxSide) {
    const int rank = static_cast<int>(shape.size());
    return sliceTensor(shape, rank >= 2 ? rank - 2 : -1, rank >= 1 ? rank - 1 : -1, slice, maxSide);
}

} // namespace gapscope
