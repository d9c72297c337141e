#include "core/align/debug_handle_resolver.h"

#include "core/backends/backend_conventions.h"
#include "core/common/decimal.h"

namespace gapscope {

const char* handleSourceName(HandleSource source) {
    switch (source) {
    case HandleSource::None: return "none";
    case HandleSource::InstructionMap: return "instruction_map";
    case HandleSource::DelegateExact: return "delegate_exact";
    case HandleSource::DelegateSubstring: return "delegate_substring";
    case HandleSource::DelegateFallback: return "delegate_fallback";
    case HandleSource::DebugIdSuffix: return "debug_id_suffix";
    case HandleSource::QnnNodeName: return "qnn_node_name";
    }
    return "none";
}

std::string EventKey::delegateId() const {
    std::string digits;
    return std::string(delegateId(digits));
}

std::string_view EventKey::delegateId(std::string& digits) const {
    // ExecuTorch's Inspector prefers the int id when both are set.
    if (delegate_debug_id_int != -1)
        return digits = std::to_string(delegate_debug_id_int);
    return delegate_debug_id_str ? std::string_view(*delegate_debug_id_str) : std::string_view();
}

std::optional<std::int64_t> debugIdSuffix(std::string_view name) {
    // The digits after the last marker, when they end the name. Found from the
    // end: the trailing digits, then the marker right before them. That is the
    // same rule as the marker's last occurrence followed by digits only (no
    // later occurrence can start among digits), without std::string::rfind,
    // which compares the marker at every position of the name (50,000 QNN
    // names: 0.87 against 0.54 ms).
    constexpr std::string_view marker = "__debugID_";
    std::size_t digits = name.size();
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
        --digits;
    if (digits == name.size() || digits < marker.size() ||
        name.substr(digits - marker.size(), marker.size()) != marker)
        return std::nullopt;
    auto n = parseDecimal(name.substr(digits));
    if (!n || *n <= 0)
        return std::nullopt;
    return n;
}

std::optional<int> outputIndexInName(std::string_view name) {
    return delegateTensorName(name).output;
}

ResolvedHandles resolveDebugHandles(const MethodMaps* maps, const EventKey& key) {
    ResolvedHandles out;
    std::string digits;
    const std::string_view id = key.delegateId(digits);
    if (key.delegated()) {
        out.output_index = outputIndexInName(id);
        if (auto handle = debugIdSuffix(id)) {
            out.handles = {*handle};
            out.source = HandleSource::DebugIdSuffix;
            return out;
        }
    }
    if (!maps) {
        out.reason = "no ETRecord debug_handle_map for this method";
        return out;
    }
    auto instr = maps->debug_handle_map.find(key.instruction_id);
    if (instr == maps->debug_handle_map.end()) {
        // ExecuTorch resolves nothing, delegated or not, for an unmapped instruction.
        out.reason = "instruction " + std::to_string(key.instruction_id) + " is not in the debug_handle_map";
        return out;
    }
    auto delegate = maps->delegate_map.find(key.instruction_id);
    if (delegate != maps->delegate_map.end())
        out.backend = delegate->second.backend;
    if (!key.delegated()) {
        out.handles = instr->second.handles;
        out.source = HandleSource::InstructionMap;
        return out;
    }
    if (delegate == maps->delegate_map.end()) {
        out.handles = instr->second.handles;
        out.source = HandleSource::DelegateFallback;
        return out;
    }
    const auto& ids = delegate->second.identifiers;
    // ExecuTorch first looks the id up with its own type: only a string id can
    // equal a JSON key, and an exact string hit ends the search.
    if (key.delegate_debug_id_int == -1) {
        for (const auto& [k, handles] : ids) {
            if (k == id) {
                out.handles = handles;
                out.source = HandleSource::DelegateExact;
                return out;
            }
        }
    }
    // Then str(id), overridden by every key that is a substring of str(id).
    for (const auto& [k, handles] : ids) {
        if (k == id) {
            out.handles = handles;
            out.source = HandleSource::DelegateExact;
        }
    }
    for (const auto& [k, handles] : ids) {
        if (id.find(k) != std::string_view::npos) {
            out.handles = handles;
            out.source = k == id ? HandleSource::DelegateExact : HandleSource::DelegateSubstring;
        }
    }
    if (out.source == HandleSource::None)
        out.reason = "delegate id '" + std::string(id) +
                     "' matches no key of the delegate_map of instruction " +
                     std::to_string(key.instruction_id);
    return out;
}

} // namespace gapscope
