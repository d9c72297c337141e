#include "core/backends/backend_conventions.h"

#include "core/common/decimal.h"

#include <array>

namespace gapscope {

namespace {

// Every backend with conventions of its own; add a new one's table here.
const std::array<const BackendConventions*, 3>& known() {
    static const std::array<const BackendConventions*, 3> kKnown = {&qnnConventions(), &armConventions(),
                                                                    &ethosUConventions()};
    return kKnown;
}

} // namespace

const BackendConventions& backendConventions(std::string_view backend) {
    static const BackendConventions kInspectorRules{};
    for (const auto* c : known())
        if (c->backend == backend)
            return *c;
    return kInspectorRules;
}

DelegateTensorName delegateTensorName(std::string_view name) {
    const auto at = name.rfind('@');
    DelegateTensorName out{at == std::string_view::npos || at == 0 ? name : name.substr(0, at), std::nullopt};
    if (at == std::string_view::npos)
        return out;
    if (const auto n = parseDecimal(name.substr(at + 1)); n && *n <= 1'000'000)
        out.output = static_cast<int>(*n);
    return out;
}

std::optional<DelegateOpEvent> delegateOpEvent(std::string_view name) {
    for (const auto* c : known()) {
        if (c->op_event_marker.empty())
            continue;
        const auto marker = name.find(c->op_event_marker);
        const auto open = name.rfind(" (");
        if (marker == std::string_view::npos || marker == 0 || open == std::string_view::npos ||
            open < marker || name.back() != ')')
            continue;
        const std::string_view unit = name.substr(open + 2, name.size() - open - 3);
        return DelegateOpEvent{name.substr(0, marker), unit, unit == c->op_event_clock_unit};
    }
    return std::nullopt;
}

} // namespace gapscope
