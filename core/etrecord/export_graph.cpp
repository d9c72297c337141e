#include "core/etrecord/export_graph.h"

#include "core/common/decimal.h"
#include "core/common/json_depth.h"
#include "core/common/python_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace gapscope {

using json = nlohmann::json;

namespace {

Error graphError(const std::string& file, const std::string& key, std::string message,
                 std::int64_t byte = -1) {
    return makeError(ErrorCode::Malformed, std::move(message), file, key, byte);
}

// A serialized union: {"as_tensor": {...}} (current) or every member listed with
// all but one null (2024). Returns the active member's name and value.
std::pair<std::string, const json*> activeMember(const json& u) {
    if (!u.is_object())
        return {"", nullptr};
    for (auto it = u.begin(); it != u.end(); ++it) {
        if (!it.value().is_null())
            return {it.key(), &it.value()};
    }
    if (u.size() == 1 && u.contains("as_none"))
        return {"as_none", &u["as_none"]};
    return {"", nullptr};
}

void collectTensorNames(const json& argument, std::vector<std::string>& out) {
    auto [kind, value] = activeMember(argument);
    if (!value)
        return;
    auto nameOf = [](const json& t) -> std::optional<std::string> {
        if (t.is_object() && t.contains("name") && t["name"].is_string())
            return t["name"].get<std::string>();
        return std::nullopt;
    };
    if (kind == "as_tensor") {
        if (auto n = nameOf(*value))
            out.push_back(*n);
    } else if (kind == "as_tensors" && value->is_array()) {
        for (const auto& t : *value)
            if (auto n = nameOf(t))
                out.push_back(*n);
    } else if (kind == "as_optional_tensors" && value->is_array()) {
        for (const auto& t : *value)
            collectTensorNames(t, out);
    } else if (kind == "as_optional_tensor") {
        collectTensorNames(*value, out);
    }
}

std::vector<std::int64_t> parseHandles(const std::string& text) {
    // Usually a decimal integer; a list handle is serialized like "[3, 4]".
    std::vector<std::int64_t> out;
    const std::string_view all(text);
    for (std::size_t i = 0; i < all.size();) {
        if (all[i] < '0' || all[i] > '9') {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < all.size() && all[j] >= '0' && all[j] <= '9')
            ++j;
        const auto v = parseDecimal(all.substr(i, j - i));
        if (!v)
            return {}; // absurd; treat as no handle rather than wrap
        out.push_back(*v);
        i = j;
    }
    // ExecuTorch treats 0 as "unset".
    out.erase(std::remove(out.begin(), out.end(), 0), out.end());
    return out;
}

// tensor_values: {"name": {"sizes": [{"as_int": 8}, {"as_expr": …}], …}, …}.
void collectTensorSizes(const json& values, std::map<std::string, std::vector<std::int64_t>>& out) {
    if (!values.is_object())
        return;
    for (auto it = values.begin(); it != values.end(); ++it) {
        const json& meta = it.value();
        if (!meta.is_object() || !meta.contains("sizes") || !meta["sizes"].is_array())
            continue;
        std::vector<std::int64_t> sizes;
        for (const auto& size : meta["sizes"]) {
            auto [kind, value] = activeMember(size);
            sizes.push_back(kind == "as_int" && value->is_number_integer() ? value->get<std::int64_t>() : -1);
        }
        out.emplace(it.key(), std::move(sizes));
    }
}

const json* metadataString(const json& metadata, const char* key) {
    if (!metadata.is_object() || !metadata.contains(key) || !metadata[key].is_string())
        return nullptr;
    return &metadata[key];
}

} // namespace

int ExportGraph::producerOf(const std::string& tensor) const {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto& outs = nodes[i].output_tensors;
        if (std::find(outs.begin(), outs.end(), tensor) != outs.end())
            return static_cast<int>(i);
    }
    return -1;
}

std::vector<std::int64_t> ExportGraph::allDebugHandles() const {
    std::vector<std::int64_t> all;
    for (const auto& n : nodes)
        all.insert(all.end(), n.debug_handles.begin(), n.debug_handles.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

namespace {
Result<ExportGraph> parseExportGraphUnguarded(const std::string& text, const std::string& file,
                                              const std::string& key);
Result<ExportGraph> graphOfDocument(const json& doc, const std::string& file, const std::string& key,
                                    int nested);

constexpr const char* kCallDelegate = "torch.ops.higher_order.executorch_call_delegate";

// An ETRecord made from the lowered program (devtools' generate_etrecord with the
// EdgeProgramManager after to_backend) keeps each delegate's lowered module as a
// JSON string argument of its call node; its `original_module` is an ordinary
// serialized program whose graph outputs are the delegate's, in return order.
// Anything unexpected leaves the node without it (delegateOutputOrder then
// derives the order, or says it cannot).
std::optional<LoweredModule> loweredModule(const json& argument, const std::string& file,
                                           const std::string& key) try {
    auto [kind, value] = activeMember(argument);
    if (kind != "as_string" || !value || !value->is_string())
        return std::nullopt;
    const auto& text = value->get_ref<const std::string&>();
    if (jsonTooDeep(text))
        return std::nullopt;
    const json lowered = json::parse(normalizePythonJson(text).text, nullptr, false);
    if (!lowered.is_object() || !lowered.contains("original_module") ||
        !lowered["original_module"].is_object())
        return std::nullopt;
    // Parsed already, as a part of the string: read as it stands, not written out and parsed again.
    auto module = graphOfDocument(lowered["original_module"], file, key + "/original_module", 1);
    if (!module)
        return std::nullopt;
    LoweredModule out;
    for (const auto& n : module.value().nodes)
        out.node_handles.insert(out.node_handles.end(), n.debug_handles.begin(), n.debug_handles.end());
    for (const auto& t : module.value().graph_outputs) {
        const int p = module.value().producerOf(t);
        out.output_handles.push_back(p < 0 ? std::vector<std::int64_t>{}
                                           : module.value().nodes[static_cast<std::size_t>(p)].debug_handles);
    }
    return out;
} catch (const std::exception&) { // a field of an unexpected type: the order is derived instead
    return std::nullopt;
}
} // namespace

Result<ExportGraph> parseExportGraph(const std::string& text, const std::string& file,
                                     const std::string& key) {
    try {
        return parseExportGraphUnguarded(text, file, key);
    } catch (const std::exception& ex) { // a field of an unexpected JSON type, …
        return graphError(file, key, "entry '" + key + "' cannot be read: " + ex.what());
    }
}

namespace {

Result<ExportGraph> parseExportGraphUnguarded(const std::string& text, const std::string& file,
                                              const std::string& key) {
    // torch.export writes non-finite float arguments as Python's NaN/Infinity tokens.
    if (const auto at = jsonTooDeep(text))
        return graphError(
            file, key, "entry '" + key + "' nests deeper than " + std::to_string(kMaxJsonDepth) + " levels",
            static_cast<std::int64_t>(*at));
    const NormalizedJson normalized = normalizePythonJson(text);
    json doc;
    try {
        doc = json::parse(normalized.text);
    } catch (const json::parse_error& e) {
        const auto byte = normalized.originalOffset(e.byte);
        return graphError(file, key, "entry '" + key + "' is not valid JSON: " + e.what(),
                          static_cast<std::int64_t>(byte));
    } catch (const json::exception& e) { // a number out of range, …
        return graphError(file, key, "entry '" + key + "' cannot be read: " + e.what());
    }
    return graphOfDocument(doc, file, key, 0);
}

// `nested`: 1 inside a lowered module, whose own delegates are not looked into.
Result<ExportGraph> graphOfDocument(const json& doc, const std::string& file, const std::string& key,
                                    int nested) {
    if (!doc.is_object() || !doc.contains("graph_module") || !doc["graph_module"].is_object() ||
        !doc["graph_module"].contains("graph") || !doc["graph_module"]["graph"].is_object())
        return graphError(file, key,
                          "entry '" + key + "' is not a serialized ExportedProgram (no graph_module.graph)");

    ExportGraph graph;
    graph.key = key;
    if (doc.contains("schema_version") && doc["schema_version"].is_object() &&
        doc["schema_version"].contains("major") && doc["schema_version"]["major"].is_number_integer())
        graph.schema_major = doc["schema_version"]["major"].get<int>();

    if (const json& gm = doc["graph_module"]; gm.contains("signature") && gm["signature"].is_object() &&
                                              gm["signature"].contains("output_specs") &&
                                              gm["signature"]["output_specs"].is_array())
        for (const auto& spec : gm["signature"]["output_specs"]) {
            auto [kind, value] = activeMember(spec);
            if (kind == "buffer_mutation" && value && value->is_object() && value->contains("buffer_name") &&
                (*value)["buffer_name"].is_string())
                graph.mutated_buffers.push_back((*value)["buffer_name"].get<std::string>());
        }
    const json& g = doc["graph_module"]["graph"];
    if (g.contains("inputs") && g["inputs"].is_array())
        for (const auto& a : g["inputs"])
            collectTensorNames(a, graph.graph_inputs);
    if (g.contains("outputs") && g["outputs"].is_array())
        for (const auto& a : g["outputs"])
            collectTensorNames(a, graph.graph_outputs);
    if (g.contains("tensor_values"))
        collectTensorSizes(g["tensor_values"], graph.tensor_sizes);
    if (!g.contains("nodes") || !g["nodes"].is_array())
        return graphError(file, key, "entry '" + key + "': graph.nodes is missing or not a list");

    std::size_t index = 0;
    for (const auto& n : g["nodes"]) {
        if (!n.is_object() || !n.contains("target") || !n["target"].is_string())
            return graphError(file, key + ".nodes[" + std::to_string(index) + "]",
                              "entry '" + key + "': node " + std::to_string(index) + " has no string target");
        GraphNode node;
        node.target = n["target"].get<std::string>();
        if (n.contains("inputs") && n["inputs"].is_array())
            for (const auto& in : n["inputs"])
                if (in.is_object() && in.contains("arg"))
                    collectTensorNames(in["arg"], node.input_tensors);
        if (n.contains("outputs") && n["outputs"].is_array())
            for (const auto& out : n["outputs"])
                collectTensorNames(out, node.output_tensors);
        if (n.contains("name") && n["name"].is_string())
            node.name = n["name"].get<std::string>();
        else if (!node.output_tensors.empty())
            node.name = node.output_tensors.front();
        else
            node.name = "node_" + std::to_string(index);
        if (n.contains("metadata")) {
            const json& md = n["metadata"];
            if (const json* h = metadataString(md, "debug_handle"))
                node.debug_handles = parseHandles(h->get<std::string>());
            if (const json* st = metadataString(md, "stack_trace"))
                node.stack_trace = st->get<std::string>();
            if (const json* fn = metadataString(md, "from_node"))
                node.from_node = fn->get<std::string>();
        }
        if (node.target == kCallDelegate && nested == 0 && n.contains("inputs") && n["inputs"].is_array() &&
            !n["inputs"].empty() && n["inputs"][0].is_object() && n["inputs"][0].contains("arg"))
            node.lowered = loweredModule(n["inputs"][0]["arg"], file, key + "/" + node.name);
        graph.nodes.push_back(std::move(node));
        ++index;
    }
    return graph;
}

} // namespace

} // namespace gapscope
