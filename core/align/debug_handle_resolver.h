#pragma once

#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// How an event's debug handles were found (shared/formats/executorch-artifacts.md
// §5.1 step 3, plus the QNN conventions of §7).
enum class HandleSource {
    None,              // not resolvable
    InstructionMap,    // debug_handle_map[instruction] (operator events, DELEGATE_CALL)
    DelegateExact,     // delegate_map key equal to the delegate id
    DelegateSubstring, // ExecuTorch's rule: a key that is a substring of the id (last in map order)
    DelegateFallback,  // delegated event of an instruction without a delegate_map entry
    DebugIdSuffix,     // QNN's first design: name ends in __debugID_<N>, handle N, no ETRecord needed
    QnnNodeName,       // "<node>@<idx>" of a multi-output node, found by name in the op graph
};

const char* handleSourceName(HandleSource source);

struct ResolvedHandles {
    std::vector<std::int64_t> handles;
    HandleSource source = HandleSource::None;
    std::string backend;             // delegate backend name when known
    std::optional<int> output_index; // from a tensor name "<node>@<idx>" (BackendConventions)
    std::string reason;              // why nothing was resolved
};

// The identity of a runtime event for resolution purposes.
struct EventKey {
    std::int32_t instruction_id = -1;
    std::int32_t delegate_debug_id_int = -1;
    std::optional<std::string> delegate_debug_id_str;

    bool delegated() const {
        return delegate_debug_id_int != -1 || (delegate_debug_id_str && !delegate_debug_id_str->empty());
    }
    // The id as ExecuTorch names the event: the int id if set, else the string.
    std::string delegateId() const;
    // The same without a copy: a view of the string id, or of the int id's
    // digits, written into `digits` (short enough never to allocate). Asked
    // twice per event on opening, where a copy of each id was 100,000
    // allocations for a 50,000-op QNN session.
    std::string_view delegateId(std::string& digits) const;
};

// Resolves one event to debug handles exactly as ExecuTorch's Inspector does,
// with two Gapscope additions: `__debugID_<N>` names resolve to N even without an
// ETRecord, and a tensor name's `@<idx>` is returned as the output index.
// `maps` may be null (no ETRecord).
ResolvedHandles resolveDebugHandles(const MethodMaps* maps, const EventKey& key);

// Parses "...__debugID_<N>" (N > 0); nullopt otherwise.
std::optional<std::int64_t> debugIdSuffix(std::string_view name);
// Parses the output index of "<node>@<idx>"; nullopt otherwise. Read only for
// a backend whose conventions put the index in the name.
std::optional<int> outputIndexInName(std::string_view name);

} // namespace gapscope
