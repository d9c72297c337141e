#include "core/backends/tosa_run.h"

#include "core/backends/arm_debug_map.h"
#include "core/common/strict_json.h"

#include <nlohmann/json.hpp>
#include <set>

namespace gapscope {

namespace {

using nlohmann::json;

// The document nests four levels to an op; a debug entry, inside it, nests as
// the Arm backend's schema does (arm_debug_map's bound).
constexpr std::size_t kMaxDepth = 24;

TosaRunOp op(const json& o, const FieldPath& at, const SafetensorsFile& file, const std::string& prefix) {
    jsonObject(o, at);
    const auto fault = [&](const char* key, std::string message) {
        return JsonFault{FieldPath(at, key).str(), std::move(message)};
    };
    TosaRunOp out;
    const json& index = jsonMember(o, at, "index");
    if (!index.is_number_unsigned())
        throw fault("index", shownJson(index) + " is not an operator's place");
    out.index = index.get<std::size_t>();
    out.op = jsonText(o, at, "op");
    out.output = jsonText(o, at, "output");
    out.dtype = jsonText(o, at, "dtype");
    out.inputs = jsonTexts(o, at, "inputs");
    const json& shape = jsonMember(o, at, "shape");
    if (!shape.is_array())
        throw fault("shape", shownJson(shape) + " is not a list");
    const FieldPath shapeAt(at, "shape");
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (!shape[i].is_number_unsigned() || shape[i].get<std::uint64_t>() > (1ull << 40))
            throw JsonFault{FieldPath(shapeAt, i).str(), shownJson(shape[i]) + " is not a size"};
        out.shape.push_back(shape[i].get<std::int64_t>());
    }
    if (const auto perms = o.find("perms"); perms != o.end()) {
        const FieldPath permsAt(at, "perms");
        if (out.op != "TRANSPOSE")
            throw fault("perms", "only a TRANSPOSE has a permutation, not " + out.op);
        if (!perms->is_array() || perms->size() != out.shape.size())
            throw fault("perms", shownJson(*perms) + " is not a permutation of the output's " +
                                     std::to_string(out.shape.size()) + " axes");
        std::vector<bool> seen(out.shape.size(), false);
        for (std::size_t i = 0; i < perms->size(); ++i) {
            const json& p = (*perms)[i];
            if (!p.is_number_unsigned() || p.get<std::uint64_t>() >= seen.size() ||
                seen[p.get<std::size_t>()])
                throw JsonFault{FieldPath(permsAt, i).str(),
                                shownJson(p) + " is not an axis, or names one axis twice"};
            seen[p.get<std::size_t>()] = true;
            out.perms.push_back(p.get<std::int64_t>());
        }
    } else if (out.op == "TRANSPOSE") {
        throw fault("perms", "missing: a TRANSPOSE's permutation tells its tensor's layout");
    }
    const auto dtype = tosaSafetensorsDtype(out.dtype);
    if (!dtype)
        throw fault("dtype", "\"" + out.dtype + "\" is not a TOSA type this format stores");
    const SafetensorsTensor* tensor = file.find(prefix + out.output);
    if (!tensor)
        throw fault("output", "\"" + prefix + out.output + "\" names no tensor of the file");
    if (tensor->dtype != *dtype)
        throw fault("dtype", "the op's " + out.dtype + " is stored as " + tensor->dtype + ", not " + *dtype);
    if (tensor->shape != out.shape)
        throw fault("shape", "the tensor \"" + out.output + "\" has another shape");
    out.tensor = *tensor;
    return out;
}

} // namespace

const TosaRunOp* TosaRun::find(const std::string& output) const {
    for (const auto& o : ops)
        if (o.output == output)
            return &o;
    return nullptr;
}

namespace {

// The TOSA types a run stores, each as safetensors stores it and as torch names it.
struct TosaTypeNames {
    const char* safetensors;
    const char* torch;
};
const TosaTypeNames* tosaType(const std::string& tosaType) {
    static const std::map<std::string, TosaTypeNames> kTypes = {
        {"FP32", {"F32", "float32"}}, {"FP16", {"F16", "float16"}}, {"BF16", {"BF16", "bfloat16"}},
        {"INT8", {"I8", "int8"}},     {"INT16", {"I16", "int16"}},  {"INT32", {"I32", "int32"}},
        {"BOOL", {"BOOL", "bool"}}};
    const auto it = kTypes.find(tosaType);
    return it == kTypes.end() ? nullptr : &it->second;
}

} // namespace

std::optional<std::string> tosaSafetensorsDtype(const std::string& type) {
    const TosaTypeNames* names = tosaType(type);
    return names ? std::optional<std::string>(names->safetensors) : std::nullopt;
}

std::string tosaTorchDtype(const std::string& type) {
    const TosaTypeNames* names = tosaType(type);
    return names ? names->torch : "";
}

namespace {

TosaNodeRef nodeRef(const json& n, const FieldPath& at) {
    jsonObject(n, at);
    return {jsonText(n, at, "node"), jsonText(n, at, "target")};
}

std::vector<TosaNodeRef> nodeRefs(const json& list, const FieldPath& at) {
    if (!list.is_array())
        throw JsonFault{at.str(), shownJson(list) + " is not a list of nodes"};
    std::vector<TosaNodeRef> out;
    for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(nodeRef(list[i], FieldPath(at, i)));
    return out;
}

// The "call" entry: the delegate call's node and its sides, as many as the
// graph's inputs and outputs.
void callSides(const json& d, const FieldPath& at, TosaRun& run) {
    const FieldPath callAt(at, "call");
    const json& call = jsonObject(jsonMember(d, at, "call"), callAt);
    run.call_node = jsonText(call, callAt, "node");
    for (const bool input : {true, false}) {
        const char* key = input ? "inputs" : "outputs";
        const FieldPath sidesAt(callAt, key);
        const json& sides = jsonMember(call, callAt, key);
        const std::size_t expected = input ? run.graph_inputs.size() : run.graph_outputs.size();
        if (!sides.is_array() || sides.size() != expected)
            throw JsonFault{sidesAt.str(), "not a list of " + std::to_string(expected) +
                                               " sides, one per graph " + (input ? "input" : "output")};
        for (std::size_t i = 0; i < sides.size(); ++i) {
            const FieldPath sideAt(sidesAt, i);
            jsonObject(sides[i], sideAt);
            TosaCallSide side;
            side.dtype = jsonText(sides[i], sideAt, "dtype");
            if (input) {
                const json& from = jsonMember(sides[i], sideAt, "from");
                if (!from.is_null())
                    side.nodes.push_back(nodeRef(from, FieldPath(sideAt, "from")));
            } else {
                side.nodes = nodeRefs(jsonMember(sides[i], sideAt, "to"), FieldPath(sideAt, "to"));
                const json& returned = jsonMember(sides[i], sideAt, "program_output");
                if (!returned.is_boolean())
                    throw JsonFault{FieldPath(sideAt, "program_output").str(),
                                    shownJson(returned) + " is not true or false"};
                side.program_output = returned.get<bool>();
            }
            (input ? run.call_inputs : run.call_outputs).push_back(std::move(side));
        }
    }
}

// One delegate's entry of the document (`at`: "gapscope.tosa_run.delegates[k]").
TosaRun delegate(const json& d, const FieldPath& at, const SafetensorsFile& file, const std::string& name) {
    jsonObject(d, at);
    TosaRun run{};
    run.file = file;
    run.backend = jsonText(d, at, "backend");
    if (run.backend != kArmTosaBackend && run.backend != kArmEthosUBackend)
        throw JsonFault{FieldPath(at, "backend").str(), "\"" + run.backend + "\" is not an Arm backend's id"};
    const FieldPath fileAt(at, "tosa_file");
    const json& tosa = jsonObject(jsonMember(d, at, "tosa_file"), fileAt);
    run.tosa_name = jsonText(tosa, fileAt, "name");
    run.tosa_sha256 = jsonText(tosa, fileAt, "sha256");
    const std::string prefix = jsonText(d, at, "tensor_prefix");
    run.graph_inputs = jsonTexts(d, at, "graph_inputs");
    run.graph_outputs = jsonTexts(d, at, "graph_outputs");
    run.graph_input_types = jsonTexts(d, at, "graph_input_types");
    if (run.graph_input_types.size() != run.graph_inputs.size())
        throw JsonFault{FieldPath(at, "graph_input_types").str(),
                        std::to_string(run.graph_input_types.size()) + " types for " +
                            std::to_string(run.graph_inputs.size()) + " inputs"};
    run.graph_output_types = jsonTexts(d, at, "graph_output_types");
    if (run.graph_output_types.size() != run.graph_outputs.size())
        throw JsonFault{FieldPath(at, "graph_output_types").str(),
                        std::to_string(run.graph_output_types.size()) + " types for " +
                            std::to_string(run.graph_outputs.size()) + " outputs"};
    callSides(d, at, run);
    const json& ops = jsonMember(d, at, "ops");
    if (!ops.is_array())
        throw JsonFault{FieldPath(at, "ops").str(), shownJson(ops) + " is not a list"};
    const FieldPath opsAt(at, "ops");
    std::set<std::string> outputs;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const FieldPath opAt(opsAt, i);
        run.ops.push_back(op(ops[i], opAt, file, prefix));
        if (!outputs.insert(run.ops.back().output).second)
            throw JsonFault{FieldPath(opAt, "output").str(),
                            "\"" + run.ops.back().output + "\" is another op's output too"};
    }
    const FieldPath outputsAt(at, "graph_outputs"), inputsAt(at, "graph_inputs");
    for (std::size_t i = 0; i < run.graph_outputs.size(); ++i)
        if (!outputs.count(run.graph_outputs[i]) && !file.find(prefix + run.graph_outputs[i]))
            throw JsonFault{FieldPath(outputsAt, i).str(),
                            "\"" + run.graph_outputs[i] + "\" is no op's output, nor a constant of the file"};
    for (std::size_t i = 0; i < run.graph_inputs.size(); ++i) {
        const SafetensorsTensor* input = file.find(prefix + run.graph_inputs[i]);
        if (!input)
            throw JsonFault{FieldPath(inputsAt, i).str(),
                            "\"" + prefix + run.graph_inputs[i] + "\" names no tensor of the file"};
        run.inputs.emplace(run.graph_inputs[i], *input);
    }
    // Each op's debug entry, in the ops' order: the Arm backend's schema
    // (readArmDebugEntries, on the document already parsed), its tosa_info
    // naming the op it sits beside.
    const FieldPath debugAt(at, "debug");
    const json& entries = jsonMember(d, at, "debug");
    if (!entries.is_array() || entries.size() != run.ops.size())
        throw JsonFault{debugAt.str(),
                        "not a list of one debug entry per op (" + std::to_string(run.ops.size()) + " ops)"};
    run.debug.path = name;
    run.debug.events = readArmDebugEntries(entries, debugAt);
    for (std::size_t i = 0; i < run.ops.size(); ++i)
        if (run.debug.events[i].tosa_tensor != run.ops[i].output)
            throw JsonFault{FieldPath(FieldPath(FieldPath(debugAt, i), "tosa_info"), "node_name").str(),
                            "\"" + run.debug.events[i].tosa_tensor + "\" is not op " + std::to_string(i) +
                                "'s output \"" + run.ops[i].output + "\""};
    return run;
}

} // namespace

Result<TosaProgramRun> readTosaRun(std::shared_ptr<const MappedFile> file) {
    const std::string name = file ? file->path() : std::string();
    const auto problem = [&](std::string message, std::string field = {}) {
        Location where;
        where.file = name;
        where.field = std::move(field);
        return Error{ErrorCode::Malformed, std::move(message), std::move(where)};
    };
    auto read = SafetensorsFile::read(std::move(file));
    if (!read)
        return read.error();
    const SafetensorsFile& tensors = read.value();
    const auto key = tensors.metadata().find(kTosaRunMetadataKey);
    if (key == tensors.metadata().end())
        return problem(
            "no TOSA run document: a safetensors file, but not one gapscope_capture.tosa_run wrote");
    const StrictJson parsed = parseStrictJson(key->second, kMaxDepth);
    if (!parsed.value)
        return problem(parsed.problem, kTosaRunMetadataKey);
    const json& doc = *parsed.value;
    TosaProgramRun runs;
    try {
        const FieldPath root(kTosaRunMetadataKey);
        const auto fault = [&](const char* field, std::string message) {
            return JsonFault{FieldPath(root, field).str(), std::move(message)};
        };
        jsonObject(doc, root);
        if (jsonText(doc, root, "format") != kTosaRunMetadataKey)
            throw fault("format", "not \"gapscope.tosa_run\"");
        const json& version = jsonMember(doc, root, "version");
        if (version != 2)
            throw fault("version", shownJson(version) +
                                       ": only version 2 is read (version 1, one delegate with a debug.json "
                                       "beside it, was never released: write the run again)");
        std::map<std::string, std::string> producer;
        if (const auto p = doc.find("producer"); p != doc.end() && p->is_object())
            for (const auto& [k, v] : p->items())
                if (v.is_string())
                    producer[k] = v.get<std::string>();
        runs.cpu_ops = nodeRefs(jsonMember(doc, root, "cpu_ops"), FieldPath(root, "cpu_ops"));
        const json& delegates = jsonMember(doc, root, "delegates");
        if (!delegates.is_array() || delegates.empty())
            throw fault("delegates", shownJson(delegates) + " is not a list of the delegate calls' runs");
        const FieldPath delegatesAt(root, "delegates");
        std::set<std::string> prefixes;
        for (std::size_t k = 0; k < delegates.size(); ++k) {
            const FieldPath at(delegatesAt, k);
            runs.delegates.push_back(delegate(delegates[k], at, tensors, name));
            runs.delegates.back().producer = producer;
            if (!prefixes.insert(jsonText(delegates[k], at, "tensor_prefix")).second)
                throw JsonFault{FieldPath(at, "tensor_prefix").str(), "another delegate's too"};
        }
    } catch (const JsonFault& f) {
        return problem(f.message, f.field);
    }
    return runs;
}

} // namespace gapscope
