#include "core/compare/comparison_value.h"

namespace gapscope {

namespace {
const AlignedRun& alignedOrEmpty(const std::shared_ptr<const AlignedRun>& aligned) {
    static const AlignedRun none; // a comparison that never got planned
    return aligned ? *aligned : none;
}
} // namespace

const std::vector<InspectorEvent>& Comparison::events() const {
    return alignedOrEmpty(aligned).events;
}

const Alignment& Comparison::alignment() const {
    return alignedOrEmpty(aligned).alignment;
}

} // namespace gapscope
