#include "core/compare/coverage_kind.h"

#include <array>
#include <utility>

namespace gapscope {

namespace {

constexpr std::array<std::pair<CoverageKind, std::string_view>, 10> kNames{{
    {CoverageKind::AotWithoutRuntime, "aot_without_runtime"},
    {CoverageKind::RuntimeWithoutAot, "runtime_without_aot"},
    {CoverageKind::OpaqueDelegateEvent, "opaque_delegate_event"},
    {CoverageKind::DelegateInternal, "delegate_internal"},
    {CoverageKind::UnresolvedEvent, "unresolved_event"},
    {CoverageKind::MissingData, "missing_data"},
    {CoverageKind::InvalidComparison, "invalid_comparison"},
    {CoverageKind::UnmatchedGroup, "unmatched_group"},
    {CoverageKind::Fused, "fused"},
    {CoverageKind::AlignmentError, "alignment_error"},
}};

} // namespace

std::string_view coverageKindName(CoverageKind kind) {
    for (const auto& [k, name] : kNames)
        if (k == kind)
            return name;
    return "unknown";
}

std::optional<CoverageKind> coverageKindNamed(std::string_view name) {
    for (const auto& [k, n] : kNames)
        if (n == name)
            return k;
    return std::nullopt;
}

} // namespace gapscope
