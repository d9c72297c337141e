#include "core/backends/tosa_run.h"

#include "core/common/strict_json.h"

#include <nlohmann/json.hpp>
#include <set>

namespace gapscope {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxDepth = 8; // the document nests three levels

struct Fault {
    std::string field, message;
};

const json& member(const json& o, const std::string& at, const char* key) {
    const auto it = o.find(key);
    if (it == o.end())
        throw Fault{at.empty() ? key : at + "." + key, "missing"};
    return *it;
}

std::string path(const std::string& at, const char* key) {
    return at.empty() ? std::string(key) : at + "." + key;
}

std::string text(const json& o, const std::string& at, const char* key) {
    const json& v = member(o, at, key);
    if (!v.is_string())
        throw Fault{path(at, key), shownJson(v) + " is not a string"};
    return v.get<std::string>();
}

std::vector<std::string> texts(const json& o, const std::string& at, const char* key) {
    const json& v = member(o, at, key);
    if (!v.is_array())
        throw Fault{path(at, key), shownJson(v) + " is not a list"};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
            throw Fault{path(at, key) + "[" + std::to_string(i) + "]", shownJson(v[i]) + " is not a string"};
        out.push_back(v[i].get<std::string>());
    }
    return out;
}

// {"name": …, "sha256": …}, when the key is there.
void fileEntry(const json& doc, const char* key, std::string& name, std::string& sha256, bool required) {
    const auto it = doc.find(key);
    if (it == doc.end()) {
        if (required)
            throw Fault{key, "missing"};
        return;
    }
    if (!it->is_object())
        throw Fault{key, shownJson(*it) + " is not an object"};
    name = text(*it, key, "name");
    sha256 = text(*it, key, "sha256");
}

TosaRunOp op(const json& o, const std::string& at, const SafetensorsFile& file) {
    if (!o.is_object())
        throw Fault{at, shownJson(o) + " is not an object"};
    TosaRunOp out;
    const json& index = member(o, at, "index");
    if (!index.is_number_unsigned())
        throw Fault{at + ".index", shownJson(index) + " is not an operator's place"};
    out.index = index.get<std::size_t>();
    out.op = text(o, at, "op");
    out.output = text(o, at, "output");
    out.dtype = text(o, at, "dtype");
    out.inputs = texts(o, at, "inputs");
    const json& shape = member(o, at, "shape");
    if (!shape.is_array())
        throw Fault{at + ".shape", shownJson(shape) + " is not a list"};
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (!shape[i].is_number_unsigned() || shape[i].get<std::uint64_t>() > (1ull << 40))
            throw Fault{at + ".shape[" + std::to_string(i) + "]", shownJson(shape[i]) + " is not a size"};
        out.shape.push_back(shape[i].get<std::int64_t>());
    }
    const auto dtype = tosaSafetensorsDtype(out.dtype);
    if (!dtype)
        throw Fault{at + ".dtype", "\"" + out.dtype + "\" is not a TOSA type this format stores"};
    const SafetensorsTensor* tensor = file.find(out.output);
    if (!tensor)
        throw Fault{at + ".output", "\"" + out.output + "\" names no tensor of the file"};
    if (tensor->dtype != *dtype)
        throw Fault{at + ".dtype",
                    "the op's " + out.dtype + " is stored as " + tensor->dtype + ", not " + *dtype};
    if (tensor->shape != out.shape)
        throw Fault{at + ".shape", "the tensor \"" + out.output + "\" has another shape"};
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
    auto read = SafetensorsFile::read(file);
    if (!read)
        return read.error();
    TosaRun run{std::move(read.value()), std::move(file), {}, {}, {}, {}, {}, {}, {}, {}, {}};
    const auto key = run.file.metadata().find(kTosaRunMetadataKey);
    if (key == run.file.metadata().end())
        return problem(
            "no TOSA run document: a safetensors file, but not one gapscope_capture.tosa_run wrote");
    const StrictJson parsed = parseStrictJson(key->second, kMaxDepth);
    if (!parsed.value)
        return problem(parsed.problem, kTosaRunMetadataKey);
    const json& doc = *parsed.value;
    try {
        if (!doc.is_object())
            throw Fault{"", shownJson(doc) + " is not an object"};
        if (text(doc, "", "format") != kTosaRunMetadataKey)
            throw Fault{"format", "not \"gapscope.tosa_run\""};
        const json& version = member(doc, "", "version");
        if (version != 1)
            throw Fault{"version", shownJson(version) + ": only version 1 is read"};
        fileEntry(doc, "tosa_file", run.tosa_name, run.tosa_sha256, true);
        fileEntry(doc, "debug_json", run.debug_json_name, run.debug_json_sha256, false);
        if (const auto producer = doc.find("producer"); producer != doc.end() && producer->is_object())
            for (const auto& [k, v] : producer->items())
                if (v.is_string())
                    run.producer[k] = v.get<std::string>();
        run.graph_inputs = texts(doc, "", "graph_inputs");
        run.graph_outputs = texts(doc, "", "graph_outputs");
        const json& ops = member(doc, "", "ops");
        if (!ops.is_array())
            throw Fault{"ops", shownJson(ops) + " is not a list"};
        std::set<std::string> outputs;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const std::string at = "ops[" + std::to_string(i) + "]";
            run.ops.push_back(op(ops[i], at, run.file));
            if (!outputs.insert(run.ops.back().output).second)
                throw Fault{at + ".output", "\"" + run.ops.back().output + "\" is another op's output too"};
        }
        for (std::size_t i = 0; i < run.graph_outputs.size(); ++i)
            if (!outputs.count(run.graph_outputs[i]))
                throw Fault{"graph_outputs[" + std::to_string(i) + "]",
                            "\"" + run.graph_outputs[i] + "\" is no op's output"};
        for (std::size_t i = 0; i < run.graph_inputs.size(); ++i) {
            const SafetensorsTensor* input = run.file.find(run.graph_inputs[i]);
            if (!input)
                throw Fault{"graph_inputs[" + std::to_string(i) + "]",
                            "\"" + run.graph_inputs[i] + "\" names no tensor of the file"};
            run.inputs.emplace(run.graph_inputs[i], *input);
        }
    } catch (const Fault& f) {
        return problem(f.message, std::string(kTosaRunMetadataKey) + (f.field.empty() ? "" : "." + f.field));
    }
    return run;
}

} // namespace gapscope
