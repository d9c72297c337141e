#include "core/backends/tosa_run.h"

#include "core/common/strict_json.h"

#include <nlohmann/json.hpp>
#include <set>

namespace gapscope {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxDepth = 8; // the document nests three levels

// {"name": …, "sha256": …}, when the key is there.
void fileEntry(const json& doc, const FieldPath& at, const char* key, std::string& name, std::string& sha256,
               bool required, std::string* path = nullptr) {
    const auto it = doc.find(key);
    if (it == doc.end()) {
        if (required)
            throw JsonFault{FieldPath(at, key).str(), "missing"};
        return;
    }
    const FieldPath here(at, key);
    jsonObject(*it, here);
    name = jsonText(*it, here, "name");
    sha256 = jsonText(*it, here, "sha256");
    if (path && it->contains("path"))
        *path = jsonText(*it, here, "path");
}

TosaRunOp op(const json& o, const FieldPath& at, const SafetensorsFile& file) {
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
    const SafetensorsTensor* tensor = file.find(out.output);
    if (!tensor)
        throw fault("output", "\"" + out.output + "\" names no tensor of the file");
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

std::optional<std::string> tosaSafetensorsDtype(const std::string& tosaType) {
    static const std::map<std::string, std::string> kTypes = {
        {"FP32", "F32"},  {"FP16", "F16"},  {"BF16", "BF16"}, {"INT8", "I8"},
        {"INT16", "I16"}, {"INT32", "I32"}, {"BOOL", "BOOL"}};
    const auto it = kTypes.find(tosaType);
    return it == kTypes.end() ? std::nullopt : std::optional<std::string>(it->second);
}

Result<TosaRun> readTosaRun(std::shared_ptr<const MappedFile> file) {
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
    TosaRun run{std::move(read.value()), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
    const auto key = run.file.metadata().find(kTosaRunMetadataKey);
    if (key == run.file.metadata().end())
        return problem(
            "no TOSA run document: a safetensors file, but not one gapscope_capture.tosa_run wrote");
    const StrictJson parsed = parseStrictJson(key->second, kMaxDepth);
    if (!parsed.value)
        return problem(parsed.problem, kTosaRunMetadataKey);
    const json& doc = *parsed.value;
    try {
        const FieldPath root(kTosaRunMetadataKey);
        const auto fault = [&](const char* field, std::string message) {
            return JsonFault{FieldPath(root, field).str(), std::move(message)};
        };
        jsonObject(doc, root);
        if (jsonText(doc, root, "format") != kTosaRunMetadataKey)
            throw fault("format", "not \"gapscope.tosa_run\"");
        const json& version = jsonMember(doc, root, "version");
        if (version != 1)
            throw fault("version", shownJson(version) + ": only version 1 is read");
        fileEntry(doc, root, "tosa_file", run.tosa_name, run.tosa_sha256, true);
        fileEntry(doc, root, "debug_json", run.debug_json_name, run.debug_json_sha256, false,
                  &run.debug_json_path);
        if (const auto producer = doc.find("producer"); producer != doc.end() && producer->is_object())
            for (const auto& [k, v] : producer->items())
                if (v.is_string())
                    run.producer[k] = v.get<std::string>();
        run.graph_inputs = jsonTexts(doc, root, "graph_inputs");
        run.graph_outputs = jsonTexts(doc, root, "graph_outputs");
        const json& ops = jsonMember(doc, root, "ops");
        if (!ops.is_array())
            throw fault("ops", shownJson(ops) + " is not a list");
        const FieldPath opsAt(root, "ops");
        std::set<std::string> outputs;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const FieldPath at(opsAt, i);
            run.ops.push_back(op(ops[i], at, run.file));
            if (!outputs.insert(run.ops.back().output).second)
                throw JsonFault{FieldPath(at, "output").str(),
                                "\"" + run.ops.back().output + "\" is another op's output too"};
        }
        const FieldPath outputsAt(root, "graph_outputs"), inputsAt(root, "graph_inputs");
        for (std::size_t i = 0; i < run.graph_outputs.size(); ++i)
            if (!outputs.count(run.graph_outputs[i]))
                throw JsonFault{FieldPath(outputsAt, i).str(),
                                "\"" + run.graph_outputs[i] + "\" is no op's output"};
        for (std::size_t i = 0; i < run.graph_inputs.size(); ++i) {
            const SafetensorsTensor* input = run.file.find(run.graph_inputs[i]);
            if (!input)
                throw JsonFault{FieldPath(inputsAt, i).str(),
                                "\"" + run.graph_inputs[i] + "\" names no tensor of the file"};
            run.inputs.emplace(run.graph_inputs[i], *input);
        }
    } catch (const JsonFault& f) {
        return problem(f.message, f.field);
    }
    return run;
}

} // namespace gapscope
