#include "core/etrecord/export_graph.h"

#include "core/common/decimal.h"
#include "core/common/json_depth.h"
#include "core/common/python_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace gapscope {

// simdjson's DOM, not nlohmann::json: a graph is read once, in any order of its
// fields, and simdjson parses it at gigabytes per second where nlohmann built a
// node per value (ViT-S/16's 1.9 MB graph: 28 against 6 ms, most of reading its
// ETRecord; an LLM's graph is ten times that). nlohmann is kept for one thing:
// saying at which byte a broken graph breaks, which simdjson's DOM does not.
using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

namespace {

Error graphError(const std::string& file, const std::string& key, std::string message,
                 std::int64_t byte = -1) {
    return makeError(ErrorCode::Malformed, std::move(message), file, key, byte);
}

std::optional<element> member(element e, std::string_view key) {
    element value;
    if (e[key].get(value) != simdjson::SUCCESS)
        return std::nullopt;
    return value;
}
std::optional<std::string_view> stringMember(element e, std::string_view key) {
    std::string_view text;
    if (e[key].get_string().get(text) != simdjson::SUCCESS)
        return std::nullopt;
    return text;
}
std::optional<array> arrayMember(element e, std::string_view key) {
    array list;
    if (e[key].get_array().get(list) != simdjson::SUCCESS)
        return std::nullopt;
    return list;
}
std::optional<std::int64_t> integer(element e) {
    std::int64_t n = 0;
    if (e.get_int64().get(n) != simdjson::SUCCESS)
        return std::nullopt;
    return n;
}

// Parses `text`, or failing that the text with Python's NaN and Infinity
// tokens made strings (normalizePythonJson), as nlohmann read it before.
simdjson::error_code parseGraphJson(simdjson::dom::parser& parser, std::string_view text, element& doc) {
    // Deeper than every reader allows is refused by the parser itself, before
    // any recursive walk of the value: simdjson's depth is jsonTooDeep's (a
    // document of kMaxJsonDepth levels is read, one of one more is not), which
    // then names the byte.
    if (auto err = parser.allocate(text.size(), kMaxJsonDepth))
        return err;
    const auto err = parser.parse(text.data(), text.size()).get(doc);
    if (err == simdjson::SUCCESS || err == simdjson::DEPTH_ERROR)
        return err;
    const NormalizedJson normalized = normalizePythonJson(text);
    if (normalized.replaced_at.empty())
        return err;
    return parser.parse(normalized.text).get(doc);
}

// A serialized union: {"as_tensor": {...}} (current) or every member listed with
// all but one null (2024). Returns the active member's name and value.
std::pair<std::string_view, std::optional<element>> activeMember(element u) {
    object o;
    if (u.get_object().get(o) != simdjson::SUCCESS)
        return {"", std::nullopt};
    for (const auto field : o)
        if (!field.value.is_null())
            return {field.key, field.value};
    if (o.size() == 1)
        if (auto none = member(u, "as_none"))
            return {"as_none", none};
    return {"", std::nullopt};
}

void collectTensorNames(element argument, std::vector<std::string>& out) {
    auto [kind, value] = activeMember(argument);
    if (!value)
        return;
    if (kind == "as_tensor") {
        if (auto n = stringMember(*value, "name"))
            out.emplace_back(*n);
    } else if (kind == "as_tensors" && value->is_array()) {
        for (const element t : array(*value))
            if (auto n = stringMember(t, "name"))
                out.emplace_back(*n);
    } else if (kind == "as_optional_tensors" && value->is_array()) {
        for (const element t : array(*value))
            collectTensorNames(t, out);
    } else if (kind == "as_optional_tensor") {
        collectTensorNames(*value, out);
    }
}

std::vector<std::int64_t> parseHandles(std::string_view all) {
    // Usually a decimal integer; a list handle is serialized like "[3, 4]".
    std::vector<std::int64_t> out;
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
// A size that is not an integer of 64 bits (a symbol) is -1.
void collectTensorSizes(element values, std::map<std::string, std::vector<std::int64_t>>& out) {
    object tensors;
    if (values.get_object().get(tensors) != simdjson::SUCCESS)
        return;
    for (const auto tensor : tensors) {
        const auto list = arrayMember(tensor.value, "sizes");
        if (!list)
            continue;
        std::vector<std::int64_t> sizes;
        for (const element size : *list) {
            auto [kind, value] = activeMember(size);
            const auto n = kind == "as_int" ? integer(*value) : std::nullopt;
            sizes.push_back(n ? *n : -1);
        }
        out.emplace(std::string(tensor.key), std::move(sizes));
    }
}

} // namespace

// "executorch.exir.dialects.edge.ops.aten.convolution.default" → "convolution";
// "…quantized_decomposed.dequantize_per_channel.default" → "dequantize_per_channel";
// an overload other than default is kept: "add.Tensor".
std::string shortTarget(std::string target) {
    const auto endsWith = [&](const std::string& tail) {
        return target.size() > tail.size() &&
               target.compare(target.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (endsWith(".default"))
        target.resize(target.size() - 8);
    for (const char* ns : {"aten.", "quantized_decomposed.", "dim_order_ops.", "llama.", "edge."}) {
        const auto at = target.rfind(ns);
        if (at != std::string::npos)
            return target.substr(at + std::char_traits<char>::length(ns));
    }
    const auto dot = target.rfind('.');
    return dot == std::string::npos ? target : target.substr(dot + 1);
}

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

Result<ExportGraph> graphOfDocument(element doc, const std::string& file, const std::string& key, int nested);

constexpr std::string_view kCallDelegate = "torch.ops.higher_order.executorch_call_delegate";

// An ETRecord made from the lowered program (devtools' generate_etrecord with the
// EdgeProgramManager after to_backend) keeps each delegate's lowered module as a
// JSON string argument of its call node; its `original_module` is an ordinary
// serialized program whose graph outputs are the delegate's, in return order.
// Anything unexpected leaves the node without it (delegateOutputOrder then
// derives the order, or says it cannot).
std::optional<LoweredModule> loweredModule(element argument, const std::string& file,
                                           const std::string& key) {
    auto [kind, value] = activeMember(argument);
    std::string_view text;
    if (kind != "as_string" || !value || value->get_string().get(text) != simdjson::SUCCESS)
        return std::nullopt;
    // A parser of its own: the outer document is still being read.
    simdjson::dom::parser parser;
    element lowered;
    if (parseGraphJson(parser, text, lowered) != simdjson::SUCCESS)
        return std::nullopt;
    const auto original = member(lowered, "original_module");
    if (!original || !original->is_object())
        return std::nullopt;
    // Parsed already, as a part of the string: read as it stands, not written out and parsed again.
    auto module = graphOfDocument(*original, file, key + "/original_module", 1);
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
}

// Why `text` is not a graph, located: the byte where it nests too deep, or
// where nlohmann finds it broken (in the original text, before NaN tokens were
// quoted).
Error unreadableGraph(simdjson::error_code err, std::string_view text, const std::string& file,
                      const std::string& key) {
    if (err == simdjson::DEPTH_ERROR)
        if (const auto at = jsonTooDeep(text))
            return graphError(file, key,
                              "entry '" + key + "' nests deeper than " + std::to_string(kMaxJsonDepth) +
                                  " levels",
                              static_cast<std::int64_t>(*at));
    const NormalizedJson normalized = normalizePythonJson(text);
    try {
        const auto parsed = nlohmann::json::parse(normalized.text);
        (void)parsed; // simdjson refused what nlohmann reads (an integer beyond 64 bits)
    } catch (const nlohmann::json::parse_error& e) {
        const auto byte = normalized.originalOffset(e.byte);
        return graphError(file, key, "entry '" + key + "' is not valid JSON: " + e.what(),
                          static_cast<std::int64_t>(byte));
    } catch (const nlohmann::json::exception& e) { // a number out of range, …
        return graphError(file, key, "entry '" + key + "' cannot be read: " + e.what());
    }
    return graphError(file, key, "entry '" + key + "' cannot be read: " + simdjson::error_message(err));
}

} // namespace

Result<ExportGraph> parseExportGraph(const std::string& text, const std::string& file,
                                     const std::string& key) {
    simdjson::dom::parser parser;
    element doc;
    if (const auto err = parseGraphJson(parser, text, doc))
        return unreadableGraph(err, text, file, key);
    return graphOfDocument(doc, file, key, 0);
}

namespace {

void readNode(element n, const std::string& file, const std::string& key, int nested, std::size_t index,
              GraphNode& node) {
    if (const auto inputs = arrayMember(n, "inputs"))
        for (const element in : *inputs)
            if (const auto arg = member(in, "arg"))
                collectTensorNames(*arg, node.input_tensors);
    if (const auto outputs = arrayMember(n, "outputs"))
        for (const element out : *outputs)
            collectTensorNames(out, node.output_tensors);
    if (const auto name = stringMember(n, "name"))
        node.name = std::string(*name);
    else if (!node.output_tensors.empty())
        node.name = node.output_tensors.front();
    else
        node.name = "node_" + std::to_string(index);
    if (const auto md = member(n, "metadata")) {
        if (const auto h = stringMember(*md, "debug_handle"))
            node.debug_handles = parseHandles(*h);
        if (const auto st = stringMember(*md, "stack_trace"))
            node.stack_trace = std::string(*st);
        if (const auto fn = stringMember(*md, "from_node"))
            node.from_node = std::string(*fn);
    }
    if (node.target == kCallDelegate && nested == 0)
        if (const auto inputs = arrayMember(n, "inputs"); inputs && inputs->size() > 0)
            if (const auto arg = member(inputs->at(0).value_unsafe(), "arg"))
                node.lowered = loweredModule(*arg, file, key + "/" + node.name);
}

// `nested`: 1 inside a lowered module, whose own delegates are not looked into.
Result<ExportGraph> graphOfDocument(element doc, const std::string& file, const std::string& key,
                                    int nested) {
    const auto gm = member(doc, "graph_module");
    const auto g = gm ? member(*gm, "graph") : std::nullopt;
    if (!g || !g->is_object())
        return graphError(file, key,
                          "entry '" + key + "' is not a serialized ExportedProgram (no graph_module.graph)");

    ExportGraph graph;
    graph.key = key;
    if (const auto version = member(doc, "schema_version"))
        if (const auto major = member(*version, "major"))
            if (const auto n = integer(*major))
                graph.schema_major = static_cast<int>(*n);

    if (const auto signature = member(*gm, "signature"))
        if (const auto specs = arrayMember(*signature, "output_specs"))
            for (const element spec : *specs) {
                auto [kind, value] = activeMember(spec);
                if (kind == "buffer_mutation" && value)
                    if (const auto buffer = stringMember(*value, "buffer_name"))
                        graph.mutated_buffers.emplace_back(*buffer);
            }
    if (const auto inputs = arrayMember(*g, "inputs"))
        for (const element a : *inputs)
            collectTensorNames(a, graph.graph_inputs);
    if (const auto outputs = arrayMember(*g, "outputs"))
        for (const element a : *outputs)
            collectTensorNames(a, graph.graph_outputs);
    if (const auto values = member(*g, "tensor_values"))
        collectTensorSizes(*values, graph.tensor_sizes);
    const auto nodes = arrayMember(*g, "nodes");
    if (!nodes)
        return graphError(file, key, "entry '" + key + "': graph.nodes is missing or not a list");

    graph.nodes.reserve(nodes->size());
    std::size_t index = 0;
    for (const element n : *nodes) {
        const auto target = stringMember(n, "target");
        if (!target)
            return graphError(file, key + ".nodes[" + std::to_string(index) + "]",
                              "entry '" + key + "': node " + std::to_string(index) + " has no string target");
        GraphNode node;
        node.target = std::string(*target);
        readNode(n, file, key, nested, index, node);
        graph.nodes.push_back(std::move(node));
        ++index;
    }
    return graph;
}

} // namespace

} // namespace gapscope
