#pragma once

#include <Qt>

namespace gapscope {

// What Ctrl+C and "Copy" put on the clipboard for a cell whose text is rounded:
// the value at full precision (issue 56: copies were rounded). A model that
// does not answer it is copied as shown.
constexpr int kCopyTextRole = Qt::UserRole + 100;

} // namespace gapscope
