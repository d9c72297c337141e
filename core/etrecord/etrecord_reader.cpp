#include "core/etrecord/etrecord_reader.h"

#include "core/common/decimal.h"
#include "core/common/json_depth.h"
#include "core/common/json_int.h"
#include "core/common/parallel.h"
#include "core/common/python_json.h"
#include "core/common/zip_archive.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace gapscope {

using ojson = nlohmann::ordered_json;

namespace {

constexpr char kMarker[] = "ETRECORD_V0";
constexpr char kEdgePrefix[] = "edge_dialect_exported_program/";
constexpr char kLegacyEdge[] = "edge_dialect_exported_program";
constexpr char kExported[] = "exported_program";
const char* const kCompanionSuffixes[] = {"state_dict", "constants", "example_inputs"};
const char* const kReserved[] = {
    "ETRECORD_V0",       "debug_handle_map",      "delegate_map",   "instruction_id_to_num_outs_map",
    "reference_outputs", "representative_inputs", "export_graph_id"};

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

bool isCompanion(const std::string& name) {
    for (const char* suffix : kCompanionSuffixes)
        if (endsWith(name, suffix))
            return true;
    return false;
}
bool isReserved(const std::string& name) {
    for (const char* r : kReserved)
        if (name == r)
            return true;
    return false;
}

Error recordError(const std::string& file, const std::string& field, std::string message,
                  ErrorCode code = ErrorCode::Malformed) {
    return makeError(code, std::move(message), file, field);
}

class MapsReader {
public:
    MapsReader(const std::string& file, EtRecord& out) : m_file(file), m_out(out) {}

    std::optional<Error> read(const ZipArchive& zip) {
        if (zip.contains("debug_handle_map")) {
            if (auto err =
                    forEachInstruction(zip, "debug_handle_map",
                                       [this](MethodMaps& m, std::int64_t id, const ojson& v,
                                              const std::string& where) { return handles(m, id, v, where); }))
                return err;
        } else {
            warn("the ETRecord has no debug_handle_map: runtime operator events cannot be resolved to debug "
                 "handles",
                 "debug_handle_map");
        }
        if (zip.contains("delegate_map"))
            if (auto err = forEachInstruction(
                    zip, "delegate_map",
                    [this](MethodMaps& m, std::int64_t id, const ojson& v, const std::string& where) {
                        return delegate(m, id, v, where);
                    }))
                return err;
        if (zip.contains("instruction_id_to_num_outs_map"))
            if (auto err = forEachInstruction(zip, "instruction_id_to_num_outs_map",
                                              [](MethodMaps& m, std::int64_t id, const ojson& v,
                                                 const std::string&) -> std::optional<std::string> {
                                                  const auto n = jsonInt64(v);
                                                  if (!n || *n < 0)
                                                      return std::string(
                                                          "number of outputs must be a non-negative integer");
                                                  m.num_outs[id] = *n;
                                                  return std::nullopt;
                                              }))
                return err;
        return std::nullopt;
    }

private:
    template <typename F>
    std::optional<Error> forEachInstruction(const ZipArchive& zip, const std::string& entry, F&& apply) {
        auto text = zip.read(entry);
        if (!text)
            return text.error();
        if (const auto at = jsonTooDeep(text.value()))
            return recordError(m_file, entry,
                               "entry '" + entry + "' nests deeper than " + std::to_string(kMaxJsonDepth) +
                                   " levels (at byte " + std::to_string(*at) + " of the entry)");
        const std::string normalized = normalizePythonJson(text.value()).text;
        ojson doc = ojson::parse(normalized, nullptr, false);
        if (doc.is_discarded()) {
            // Say why: a syntax error and a number too large for a double
            // (1e400) read differently to whoever fixes the writer.
            std::string why = "invalid JSON";
            try {
                const ojson again = ojson::parse(normalized);
                why = again.dump(); // not reached: the first parse failed
            } catch (const ojson::exception& ex) {
                why = ex.what();
            }
            return recordError(m_file, entry, "entry '" + entry + "' is not valid JSON: " + why);
        }
        if (!doc.is_object())
            return recordError(m_file, entry,
                               "entry '" + entry + "' is not a JSON object (method → instruction → …)");
        for (auto method = doc.begin(); method != doc.end(); ++method) {
            if (!method.value().is_object())
                return recordError(m_file, entry + "." + method.key(),
                                   "entry '" + entry + "': method '" + method.key() +
                                       "' does not map to an object");
            MethodMaps& maps = m_out.methods[method.key()];
            for (auto instr = method.value().begin(); instr != method.value().end(); ++instr) {
                const std::string where = entry + "." + method.key() + "." + instr.key();
                auto id = parseDecimal(instr.key());
                if (!id)
                    return recordError(m_file, where,
                                       "entry '" + entry + "': instruction id '" + instr.key() +
                                           "' is not a decimal integer");
                if (auto problem = apply(maps, *id, instr.value(), where))
                    return recordError(m_file, where,
                                       "entry '" + entry + "', method '" + method.key() + "', instruction " +
                                           instr.key() + ": " + *problem);
            }
        }
        return std::nullopt;
    }

    static std::optional<std::string> handleList(const ojson& v, std::vector<std::int64_t>& out) {
        for (const auto& h : v) {
            const auto handle = jsonInt64(h);
            if (!handle)
                return std::string("debug handles must be integers of at most 2^63 - 1");
            out.push_back(*handle);
        }
        return std::nullopt;
    }

    std::optional<std::string> handles(MethodMaps& m, std::int64_t id, const ojson& v, const std::string&) {
        InstructionHandles h;
        if (v.is_number()) {
            const auto handle = jsonInt64(v);
            if (!handle)
                return std::string("debug handles must be integers of at most 2^63 - 1");
            h.handles.push_back(*handle);
        } else if (v.is_array()) {
            h.is_list = true;
            if (auto problem = handleList(v, h.handles))
                return problem;
        } else {
            return std::string("value must be a debug handle or a list of them");
        }
        m.debug_handle_map[id] = std::move(h);
        return std::nullopt;
    }

    std::optional<std::string> delegate(MethodMaps& m, std::int64_t id, const ojson& v, const std::string&) {
        if (!v.is_object())
            return std::string("value must be an object with 'name' and 'delegate_map'");
        DelegateMapping d;
        if (v.contains("name") && v["name"].is_string())
            d.backend = v["name"].get<std::string>();
        // null: the backend gave no map (ExecuTorch's Arm backend writes
        // {"name": "TOSABackend", "delegate_map": null}); the Inspector reads it
        // as an empty one (`delegate_metadata.get("delegate_map") or {}`).
        if (v.contains("delegate_map") && !v["delegate_map"].is_null()) {
            const auto& dm = v["delegate_map"];
            if (!dm.is_object())
                return std::string("'delegate_map' must be an object or null");
            for (auto it = dm.begin(); it != dm.end(); ++it) {
                std::vector<std::int64_t> hs;
                if (it.value().is_number()) {
                    const auto handle = jsonInt64(it.value());
                    if (!handle)
                        return std::string("debug handles must be integers of at most 2^63 - 1");
                    hs.push_back(*handle);
                } else if (!it.value().is_array())
                    return "delegate id '" + it.key() + "' must map to a list of debug handles";
                else if (auto problem = handleList(it.value(), hs))
                    return problem;
                d.identifiers.emplace_back(it.key(), std::move(hs));
            }
        }
        m.delegate_map[id] = std::move(d);
        return std::nullopt;
    }

    void warn(std::string message, std::string field) {
        Location l;
        l.file = m_file;
        l.field = std::move(field);
        m_out.warnings.push_back(Warning{WarningCode::MissingEntry, std::move(message), std::move(l)});
    }

    const std::string& m_file;
    EtRecord& m_out;
};

} // namespace

namespace {
Result<EtRecord> readEtRecordUnguarded(std::shared_ptr<const MappedFile> file, ProgressFn progress);
}

Result<EtRecord> readEtRecord(std::shared_ptr<const MappedFile> file, ProgressFn progress) {
    const std::string path = file->path();
    try {
        return readEtRecordUnguarded(std::move(file), std::move(progress));
    } catch (const std::exception& ex) { // a JSON field of an unexpected type, a number out of range, …
        return recordError(path, "", std::string("the ETRecord cannot be read: ") + ex.what());
    }
}

namespace {

Result<EtRecord> readEtRecordUnguarded(std::shared_ptr<const MappedFile> file, ProgressFn progress) {
    const std::string path = file->path();
    auto zip = ZipArchive::open(file);
    if (!zip) {
        Error e = zip.error();
        e.message = "not an ETRecord: " + e.message;
        return e;
    }
    const ZipArchive& archive = *zip.value();
    if (!archive.contains(kMarker))
        return recordError(path, kMarker, "not an ETRecord: the ZIP archive has no ETRECORD_V0 entry",
                           ErrorCode::BadMagic);

    EtRecord record;
    record.path = path;
    record.entries = archive.entries();
    record.entries_sha256 = archive.entriesSha256();
    record.has_representative_inputs = archive.contains("representative_inputs");
    record.has_reference_outputs = archive.contains("reference_outputs");

    const std::uint64_t total = record.entries.size();
    std::uint64_t done = 0;
    auto step = [&]() { return !progress || progress(++done, total); };
    auto cancelled = [&]() {
        return recordError(path, "",
                           "reading cancelled after " + std::to_string(done) + " of " +
                               std::to_string(total) + " entries",
                           ErrorCode::Cancelled);
    };

    if (auto err = MapsReader(path, record).read(archive))
        return std::move(*err);

    if (archive.contains("export_graph_id")) {
        auto text = archive.read("export_graph_id");
        if (!text)
            return text.error();
        auto j = jsonTooDeep(text.value()) ? nlohmann::json()
                                           : nlohmann::json::parse(text.value(), nullptr, false);
        if (const auto id = jsonInt64(j))
            record.export_graph_id = *id;
    }

    // The graphs' texts are read (decompressed) in entry order, then parsed
    // side by side: JSON parsing is most of reading a real ETRecord.
    std::vector<std::pair<std::string, std::string>> texts;
    for (const auto& name : record.entries) {
        if (!step())
            return cancelled();
        if (isReserved(name) || isCompanion(name))
            continue;
        auto text = archive.read(name);
        if (!text)
            return text.error();
        texts.emplace_back(name, std::move(text).value());
    }
    std::vector<std::optional<Result<ExportGraph>>> graphs(texts.size());
    parallelFor(texts.size(), [&](std::size_t i) {
        graphs[i].emplace(parseExportGraph(texts[i].second, path, texts[i].first));
    });
    bool unreadableEdge = false;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const std::string& name = texts[i].first;
        auto& graph = *graphs[i];
        if (!graph) {
            // One graph the reader cannot use does not sink the maps and the other graphs.
            const Error& e = graph.error();
            record.warnings.push_back(
                Warning{WarningCode::UnreadableEntry, e.message + "; the entry is left out", e.where});
            unreadableEdge = unreadableEdge || name == kLegacyEdge || startsWith(name, kEdgePrefix);
            continue;
        }
        if (name == kExported) {
            record.exported_program = std::move(graph).value();
        } else if (name == kLegacyEdge) {
            record.legacy_layout = true;
            record.edge_programs["forward"] = std::move(graph).value();
        } else if (startsWith(name, kEdgePrefix)) {
            record.edge_programs[name.substr(sizeof(kEdgePrefix) - 1)] = std::move(graph).value();
        } else {
            record.graph_map[name] = std::move(graph).value();
        }
    }
    if (record.edge_programs.empty() && !unreadableEdge)
        return recordError(
            path, kEdgePrefix,
            "the ETRecord holds no edge_dialect_exported_program (neither per method nor legacy)");
    return record;
}

} // namespace

Result<EtRecord> loadEtRecord(const std::string& path, ProgressFn progress) {
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    file.value()->protectFromOutputs();
    return readEtRecord(file.value(), std::move(progress));
}

} // namespace gapscope
