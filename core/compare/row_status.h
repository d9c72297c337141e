#pragma once

namespace gapscope {

// Whether a row's numbers can be trusted, and why not (docs/metrics.md). Ordered
// by severity: a row takes the worst status of its elements.
enum class RowStatus {
    Ok,          // compared element for element
    Broadcast,   // shapes differed; compared with torch broadcasting as ExecuTorch does
    MissingData, // a runtime tensor's bytes are missing or no debug buffer was given
    Invalid,     // cannot be compared (shapes, list against tensor, ...): no number shown
};

const char* rowStatusName(RowStatus status);

} // namespace gapscope
