#include "core/backends/arm_delegate_map.h"

#include <algorithm>
#include <unordered_map>

namespace gapscope {

ArmDelegateMap armDelegateMap(const ArmDebugMap& map, const AotCapture& capture) {
    // Each op name of the capture's rows → the row's handles; a name two rows
    // give (none should: names are the exported graph's nodes) maps to neither.
    std::unordered_map<std::string, const std::vector<std::int64_t>*> rowOf;
    std::unordered_map<std::string, int> times;
    for (const auto& record : capture.records)
        for (std::size_t i = 0; i < record.ops.size(); ++i) {
            const std::string& op = record.ops[i];
            if (std::find(record.ops.begin(), record.ops.begin() + static_cast<std::ptrdiff_t>(i), op) !=
                record.ops.begin() + static_cast<std::ptrdiff_t>(i))
                continue; // counted for this row already
            if (++times[op] == 1)
                rowOf[op] = &record.debug_handle;
        }
    ArmDelegateMap out;
    out.mapping.backend = kArmTosaBackend;
    // Each node's last op, found from the end.
    std::unordered_map<std::string, std::size_t> lastOf;
    for (std::size_t i = map.events.size(); i-- > 0;)
        lastOf.emplace(map.events[i].origin(), i);
    for (std::size_t i = 0; i < map.events.size(); ++i) {
        const ArmDebugEvent& event = map.events[i];
        const std::string& origin = event.origin();
        const auto row = rowOf.find(origin);
        if (row == rowOf.end())
            out.unmapped.emplace_back(event.tosa_tensor,
                                      "its node '" + origin + "' is no op of the capture's rows");
        else if (times[origin] > 1)
            out.unmapped.emplace_back(event.tosa_tensor, "its node '" + origin + "' is an op of " +
                                                             std::to_string(times[origin]) +
                                                             " of the capture's rows");
        else if (lastOf.at(origin) != i)
            out.inside.emplace_back(event.tosa_tensor, origin);
        else
            out.mapping.identifiers.emplace_back(event.tosa_tensor, *row->second);
    }
    return out;
}

} // namespace gapscope
