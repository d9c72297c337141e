#include "core/backends/arm_debug_map.h"

#include "core/common/strict_json.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

namespace gapscope {

namespace {

using nlohmann::json;

// The schema nests four levels (a list of entries, torch_info, node_trace, a
// trace entry); nn_module_stack and torch_fn add a few.
constexpr std::size_t kMaxDepth = 16;

ArmDebugEvent event(const json& e, const FieldPath& at) {
    jsonObject(e, at);
    ArmDebugEvent out;
    const json& id = jsonMember(e, at, "event_id");
    if (!id.is_number_integer())
        throw JsonFault{FieldPath(at, "event_id").str(), shownJson(id) + " is not an integer"};
    out.event_id = id.get<std::int64_t>();
    // tosa_info is left out in DebugMode.TOSA, where the same JSON goes into
    // each op's location in the graph instead: without it, no op can be named.
    const FieldPath tosaAt(at, "tosa_info");
    const json& tosa = jsonObject(jsonMember(e, at, "tosa_info"), tosaAt);
    out.tosa_tensor = jsonText(tosa, tosaAt, "node_name");
    out.tosa_op = jsonText(tosa, tosaAt, "operator_name");
    if (out.tosa_op.rfind("Op.", 0) == 0)
        out.tosa_op.erase(0, 3);
    if (out.tosa_tensor.empty())
        throw JsonFault{FieldPath(tosaAt, "node_name").str(), "empty"};
    const FieldPath atenAt(at, "aten_info");
    const json& aten = jsonObject(jsonMember(e, at, "aten_info"), atenAt);
    out.aten_node = jsonText(aten, atenAt, "node_name");
    out.aten_op = jsonText(aten, atenAt, "operator_name");
    const FieldPath torchAt(at, "torch_info");
    const json& torch = jsonObject(jsonMember(e, at, "torch_info"), torchAt);
    const FieldPath traceAt(torchAt, "node_trace");
    const json& trace = jsonMember(torch, torchAt, "node_trace");
    if (trace.is_array()) {
        for (std::size_t i = 0; i < trace.size(); ++i) {
            const FieldPath entryAt(traceAt, i);
            jsonObject(trace[i], entryAt);
            ArmDebugEvent::TraceNode node{jsonText(trace[i], entryAt, "name"),
                                          jsonText(trace[i], entryAt, "target")};
            if (out.trace.empty() || !(out.trace.back() == node))
                out.trace.push_back(std::move(node));
        }
    } else if (!trace.is_string()) {
        throw JsonFault{traceAt.str(), shownJson(trace) + " is neither a list nor the schema's note"};
    }
    const json& stack = jsonMember(torch, torchAt, "stack_trace");
    if (!stack.is_array())
        throw JsonFault{FieldPath(torchAt, "stack_trace").str(),
                        shownJson(stack) + " is not a list of lines"};
    out.stack_trace = jsonTexts(torch, torchAt, "stack_trace");
    return out;
}

} // namespace

Result<ArmDebugMap> readArmDebugMap(std::string_view text, const std::string& path) {
    const auto problem = [&](std::string message, std::string field = {},
                             ErrorCode code = ErrorCode::Malformed) {
        Location where;
        where.file = path;
        where.field = std::move(field);
        return Error{code, std::move(message), std::move(where)};
    };
    if (text.empty())
        return problem("empty: the Arm backend writes a list of its ops' debug entries", {},
                       ErrorCode::Empty);
    if (text.size() > kMaxArmDebugMapBytes)
        return problem(std::to_string(text.size()) + " bytes, over the " +
                           std::to_string(kMaxArmDebugMapBytes >> 20) + " MiB an Arm debug map is read up to",
                       {}, ErrorCode::TooLarge);
    const StrictJson parsed = parseStrictJson(text, kMaxDepth);
    if (!parsed.value)
        return problem(parsed.problem);
    ArmDebugMap map;
    map.path = path;
    try {
        map.events = readArmDebugEntries(*parsed.value, FieldPath(""));
    } catch (const JsonFault& f) {
        return problem(f.message, f.field);
    }
    return map;
}

std::vector<ArmDebugEvent> readArmDebugEntries(const json& entries, const FieldPath& at) {
    if (!entries.is_array())
        throw JsonFault{at.str(), "not the Arm backend's debug map: " + shownJson(entries) +
                                      " is not a list of entries"};
    std::vector<ArmDebugEvent> events;
    events.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i)
        events.push_back(event(entries[i], FieldPath(at, i)));
    std::unordered_map<std::string_view, std::size_t> named;
    for (std::size_t i = 0; i < events.size(); ++i)
        if (const auto [first, fresh] = named.emplace(events[i].tosa_tensor, i); !fresh)
            throw JsonFault{FieldPath(FieldPath(FieldPath(at, i), "tosa_info"), "node_name").str(),
                            "the TOSA tensor \"" + events[i].tosa_tensor + "\" is named by entry " +
                                std::to_string(first->second) + " too"};
    return events;
}

} // namespace gapscope
