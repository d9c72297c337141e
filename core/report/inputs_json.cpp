#include "core/report/inputs_json.h"

#include "core/etdump/tensor_stats.h"
#include "core/report/etdump_json.h"

namespace gapscope {

using json = nlohmann::ordered_json;

namespace {

json graphJson(const ExportGraph& g) {
    json nodes = json::array();
    for (const auto& n : g.nodes) {
        nodes.push_back({{"name", n.name},
                         {"target", n.target},
                         {"debug_handles", n.debug_handles},
                         {"inputs", n.input_tensors},
                         {"outputs", n.output_tensors},
                         {"has_stack_trace", n.stack_trace.has_value()}});
    }
    return {{"entry", g.key}, {"inputs", g.graph_inputs}, {"outputs", g.graph_outputs}, {"nodes", nodes}};
}

json warningsJson(const Warnings& warnings) {
    json out = json::array();
    for (const auto& w : warnings)
        out.push_back({{"code", warningCodeName(w.code)}, {"message", w.describe()}});
    return out;
}

json valueJson(const AotCapture& c, const CaptureValue& v) {
    switch (v.kind) {
    case CaptureValue::Kind::Tensor: {
        const auto* t = c.tensor(v);
        json j = {{"kind", "tensor"}, {"name", v.tensor}};
        if (t) {
            j["dtype"] = t->dtype;
            j["shape"] = t->shape;
            const auto s = computeTensorStats(t->scalar_type, c.file->bytes(*t), t->numel);
            j["stats"] = {{"sum", jsonNumber(s.sum)},
                          {"min", s.min ? jsonNumber(*s.min) : json(nullptr)},
                          {"max", s.max ? jsonNumber(*s.max) : json(nullptr)},
                          {"nan", s.nan},
                          {"inf", s.inf}};
        }
        return j;
    }
    case CaptureValue::Kind::Int: return {{"kind", "int"}, {"value", v.int_value}};
    case CaptureValue::Kind::Float: return {{"kind", "float"}, {"value", jsonNumber(v.float_value)}};
    case CaptureValue::Kind::Bool: return {{"kind", "bool"}, {"value", v.bool_value}};
    case CaptureValue::Kind::Null: return {{"kind", "null"}};
    case CaptureValue::Kind::List: {
        json items = json::array();
        for (const auto& i : v.items)
            items.push_back(valueJson(c, i));
        return {{"kind", "list"}, {"items", items}};
    }
    }
    return nullptr;
}

} // namespace

json etrecordToJson(const EtRecord& r) {
    json doc;
    doc["file"] = r.path;
    doc["legacy_layout"] = r.legacy_layout;
    doc["entries"] = r.entries;
    json methods = json::object();
    for (const auto& [name, m] : r.methods) {
        json dhm = json::object();
        for (const auto& [instr, h] : m.debug_handle_map)
            dhm[std::to_string(instr)] = h.is_list ? json(h.handles) : json(h.handles.at(0));
        json dm = json::object();
        for (const auto& [instr, d] : m.delegate_map) {
            json ids = json::object();
            for (const auto& [k, hs] : d.identifiers)
                ids[k] = hs;
            dm[std::to_string(instr)] = {{"name", d.backend}, {"delegate_map", ids}};
        }
        json outs = json::object();
        for (const auto& [instr, n] : m.num_outs)
            outs[std::to_string(instr)] = n;
        methods[name] = {
            {"debug_handle_map", dhm}, {"delegate_map", dm}, {"instruction_id_to_num_outs_map", outs}};
    }
    doc["methods"] = methods;
    json edge = json::object();
    for (const auto& [method, g] : r.edge_programs)
        edge[method] = graphJson(g);
    doc["edge_dialect_exported_program"] = edge;
    doc["exported_program"] = r.exported_program ? graphJson(*r.exported_program) : json(nullptr);
    json gm = json::object();
    for (const auto& [key, g] : r.graph_map)
        gm[key] = graphJson(g);
    doc["graph_map"] = gm;
    doc["export_graph_id"] = r.export_graph_id ? json(*r.export_graph_id) : json(nullptr);
    doc["has_representative_inputs"] = r.has_representative_inputs;
    doc["has_reference_outputs"] = r.has_reference_outputs;
    doc["warnings"] = warningsJson(r.warnings);
    return doc;
}

json captureToJson(const AotCapture& c) {
    json doc;
    doc["file"] = c.file ? json(c.file->path()) : json(nullptr);
    doc["version"] = c.version;
    doc["producer"] = c.producer;
    doc["reference_graph"] = c.reference_graph ? json(*c.reference_graph) : json(nullptr);
    doc["method"] = c.method;
    doc["etrecord_sha256"] = c.etrecord_sha256 ? json(*c.etrecord_sha256) : json(nullptr);
    doc["layout_recorded"] = c.layout_recorded;
    json records = json::array();
    for (const auto& r : c.records) {
        json outs = json::array();
        for (const auto& v : r.outputs)
            outs.push_back(valueJson(c, v));
        records.push_back({{"debug_handle", r.debug_handle},
                           {"ops", r.ops},
                           {"sequence", r.sequence},
                           {"outputs", outs},
                           {"quantized", !r.quantization.empty()},
                           {"axis_order", r.axis_order ? json(*r.axis_order) : json(nullptr)}});
    }
    doc["records"] = records;
    return doc;
}

} // namespace gapscope
