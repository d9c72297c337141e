#include "core/backends/backend_conventions.h"

#include <array>

namespace gapscope {

const BackendConventions& backendConventions(std::string_view backend) {
    // Every backend with conventions of its own; add a new one's table here.
    static const std::array<const BackendConventions*, 1> kKnown = {&qnnConventions()};
    static const BackendConventions kInspectorRules{};
    for (const auto* c : kKnown)
        if (c->backend == backend)
            return *c;
    return kInspectorRules;
}

} // namespace gapscope
