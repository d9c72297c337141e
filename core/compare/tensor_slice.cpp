#include "core/compare/tensor_slice.h"

#include <algorithm>
#include <cstddef>

namespace gapscope {

std::vector<std::int64_t> TensorSlice::coordinates(int y, int x) const {
    auto flatIndex = static_cast<std::int64_t>(flat(y, x));
    std::vector<std::int64_t> coords(shape.size(), 0);
    for (std::size_t d = shape.size(); d-- > 0;) {
        const std::int64_t extent = std::max<std::int64_t>(shape[d], 1);
        coords[d] = flatIndex % extent;
        flatIndex /= extent;
    }
    return coords;
}

TensorSlice sliceTensor(const std::vector<std::int64_t>& shape, int rowAxis, int colAxis, std::int64_t slice,
                        int maxSide) {
    TensorSlice s;
    s.shape = shape;
    const int rank = static_cast<int>(shape.size());
    const auto valid = [rank](int axis) { return axis >= 0 && axis < rank ? axis : -1; };
    s.row_axis = valid(rowAxis);
    s.col_axis = valid(colAxis);
    if (s.row_axis == s.col_axis)
        s.row_axis = -1;
    const auto extent = [&](int d) { return std::max<std::int64_t>(shape[static_cast<std::size_t>(d)], 1); };
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (int d = rank - 2; d >= 0; --d)
        strides[static_cast<std::size_t>(d)] = strides[static_cast<std::size_t>(d) + 1] * extent(d + 1);
    s.cols = s.col_axis >= 0 ? shape[static_cast<std::size_t>(s.col_axis)] : 1;
    s.rows = s.row_axis >= 0 ? shape[static_cast<std::size_t>(s.row_axis)] : 1;
    for (int d = 0; d < rank; ++d)
        if (d != s.row_axis && d != s.col_axis)
            s.slices *= shape[static_cast<std::size_t>(d)];
    s.slices = std::max<std::int64_t>(s.slices, 1);
    // The slice's offset: its index unravelled over the other axes.
    std::int64_t rest = std::clamp<std::int64_t>(slice, 0, s.slices - 1);
    for (int d = rank - 1; d >= 0; --d) {
        if (d == s.row_axis || d == s.col_axis)
            continue;
        s.base += (rest % extent(d)) * strides[static_cast<std::size_t>(d)];
        rest /= extent(d);
    }
    s.row_stride = s.row_axis >= 0 ? strides[static_cast<std::size_t>(s.row_axis)] : 0;
    s.col_stride = s.col_axis >= 0 ? strides[static_cast<std::size_t>(s.col_axis)] : 0;
    const std::int64_t side = std::max<std::int64_t>(std::max(s.rows, s.cols), 0);
    const std::int64_t limit = std::max(maxSide, 1);
    s.stride = static_cast<int>(std::max<std::int64_t>(1, (side + limit - 1) / limit));
    s.width = static_cast<int>((std::max<std::int64_t>(s.cols, 0) + s.stride - 1) / s.stride);
    s.height = static_cast<int>((std::max<std::int64_t>(s.rows, 0) + s.stride - 1) / s.stride);
    return s;
}

} // namespace gapscope
