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

struct Fault {
    std::string field, message;
};

const json& member(const json& o, const std::string& at, const char* key) {
    const auto it = o.find(key);
    if (it == o.end())
        throw Fault{at + "." + key, "missing"};
    return *it;
}

const json& object(const json& v, const std::string& at) {
    if (!v.is_object())
        throw Fault{at, shownJson(v) + " is not an object"};
    return v;
}

std::string text(const json& o, const std::string& at, const char* key) {
    const json& v = member(o, at, key);
    if (!v.is_string())
        throw Fault{at + "." + key, shownJson(v) + " is not a string"};
    return v.get<std::string>();
}

ArmDebugEvent event(const json& e, const std::string& at) {
    object(e, at);
    ArmDebugEvent out;
    const json& id = member(e, at, "event_id");
    if (!id.is_number_integer())
        throw Fault{at + ".event_id", shownJson(id) + " is not an integer"};
    out.event_id = id.get<std::int64_t>();
    // tosa_info is left out in DebugMode.TOSA, where the same JSON goes into
    // each op's location in the graph instead: without it, no op can be named.
    const std::string tosaAt = at + ".tosa_info";
    const json& tosa = object(member(e, at, "tosa_info"), tosaAt);
    out.tosa_tensor = text(tosa, tosaAt, "node_name");
    out.tosa_op = text(tosa, tosaAt, "operator_name");
    if (out.tosa_op.rfind("Op.", 0) == 0)
        out.tosa_op.erase(0, 3);
    if (out.tosa_tensor.empty())
        throw Fault{tosaAt + ".node_name", "empty"};
    const std::string atenAt = at + ".aten_info";
    const json& aten = object(member(e, at, "aten_info"), atenAt);
    out.aten_node = text(aten, atenAt, "node_name");
    out.aten_op = text(aten, atenAt, "operator_name");
    const std::string torchAt = at + ".torch_info";
    const json& torch = object(member(e, at, "torch_info"), torchAt);
    const json& trace = member(torch, torchAt, "node_trace");
    if (trace.is_array()) {
        for (std::size_t i = 0; i < trace.size(); ++i) {
            const std::string entryAt = torchAt + ".node_trace[" + std::to_string(i) + "]";
            const std::string name = text(object(trace[i], entryAt), entryAt, "name");
            if (out.trace.empty() || out.trace.back() != name)
                out.trace.push_back(name);
        }
    } else if (!trace.is_string()) {
        throw Fault{torchAt + ".node_trace", shownJson(trace) + " is neither a list nor the schema's note"};
    }
    const json& stack = member(torch, torchAt, "stack_trace");
    if (!stack.is_array())
        throw Fault{torchAt + ".stack_trace", shownJson(stack) + " is not a list of lines"};
    for (std::size_t i = 0; i < stack.size(); ++i) {
        if (!stack[i].is_string())
            throw Fault{torchAt + ".stack_trace[" + std::to_string(i) + "]",
                        shownJson(stack[i]) + " is not a string"};
        out.stack_trace.push_back(stack[i].get<std::string>());
    }
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
    const json& root = *parsed.value;
    if (!root.is_array())
        return problem("not the Arm backend's debug map: " + shownJson(root) + " is not a list of entries");
    ArmDebugMap map;
    map.path = path;
    map.events.reserve(root.size());
    try {
        for (std::size_t i = 0; i < root.size(); ++i)
            map.events.push_back(event(root[i], "[" + std::to_string(i) + "]"));
    } catch (const Fault& f) {
        return problem(f.message, f.field);
    }
    std::unordered_map<std::string_view, std::size_t> named;
    for (std::size_t i = 0; i < map.events.size(); ++i)
        if (const auto [at, first] = named.emplace(map.events[i].tosa_tensor, i); !first)
            return problem("the TOSA tensor \"" + map.events[i].tosa_tensor + "\" is named by entry " +
                               std::to_string(at->second) + " too",
                           "[" + std::to_string(i) + "].tosa_info.node_name");
    return map;
}

} // namespace gapscope
