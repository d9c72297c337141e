#pragma once

#include "core/common/diagnostics.h"
#include "core/etrecord/export_graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// debug_handle_map value: an int for a KernelCall, a list for a DelegateCall.
struct InstructionHandles {
    std::vector<std::int64_t> handles;
    bool is_list = false;
};

struct DelegateMapping {
    std::string backend; // "XnnpackBackend", "QnnBackend", ...
    // Delegate debug identifier → handles, in the JSON's order (ExecuTorch's
    // substring rule lets the last match in map order win).
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> identifiers;
};

// The per-method maps that tie runtime instruction ids to debug handles (§4.2–4.4).
struct MethodMaps {
    std::map<std::int64_t, InstructionHandles> debug_handle_map;
    std::map<std::int64_t, DelegateMapping> delegate_map;
    std::map<std::int64_t, std::int64_t> num_outs; // DelegateCall instruction → outputs (default 1)

    std::int64_t numOutputs(std::int64_t instruction) const;
};

struct EtRecord {
    std::string path;
    bool legacy_layout = false; // single `edge_dialect_exported_program` entry
    std::vector<std::string> entries;
    // ZipArchive::entriesSha256: what a capture's etrecord_entries_sha256 names
    // (the provenance check), known without hashing the whole file.
    std::string entries_sha256;

    std::map<std::string, MethodMaps> methods;        // method name → maps
    std::map<std::string, ExportGraph> edge_programs; // method name → Edge program
    std::optional<ExportGraph> exported_program;      // ATen program, if saved
    std::map<std::string, ExportGraph> graph_map;     // "<module>/<method>" → program
    std::optional<std::int64_t> export_graph_id;
    bool has_representative_inputs = false;
    bool has_reference_outputs = false;

    Warnings warnings;

    const ExportGraph* edgeProgram(const std::string& method = "forward") const;
    const MethodMaps* maps(const std::string& method = "forward") const;
};

} // namespace gapscope
