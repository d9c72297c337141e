#pragma once

#include <optional>
#include <string_view>

namespace gapscope {

// Why a reference record or a runtime event is not a measured row
// (Comparison::coverage): every kind the reports list, once. Reports write
// coverageKindName; the app shows it.
enum class CoverageKind {
    AotWithoutRuntime,   // no runtime event carries the record's debug handles
    RuntimeWithoutAot,   // the capture has no reference output for the event's handles
    OpaqueDelegateEvent, // a delegate's own event, its backend publishing no debug map (XNNPACK)
    DelegateInternal,    // a tensor the delegate added itself (QNN: quantize, permute, graph output)
    UnresolvedEvent,     // an event whose handles could not be resolved
    MissingData,         // a logged tensor whose bytes are missing or invalid
    InvalidComparison,   // a row found invalid when measured
    UnmatchedGroup,      // a group of records the runtime's group does not match
    Fused,               // inside a runtime group: only the group's last output is compared
    AlignmentError,      // the alignment could not place something
};

// "aot_without_runtime", "opaque_delegate_event", …: what reports write.
std::string_view coverageKindName(CoverageKind kind);
std::optional<CoverageKind> coverageKindNamed(std::string_view name);

} // namespace gapscope
