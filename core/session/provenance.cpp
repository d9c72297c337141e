#include "core/session/provenance.h"

#include "core/common/sha256.h"
#include "core/report/safe_text.h"
#include "core/session/session.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace gapscope {

namespace {

std::string anotherEtRecord(const std::string& what, const std::string& captured, const std::string& open) {
    return "the capture was made from another ETRecord (" + what + " " + captured.substr(0, 12) +
           "…, this one " + open.substr(0, 12) +
           "…): its debug handles may be another program's. Capture this ETRecord";
}

// The graph of the ETRecord the capture says it was taken of, when the ETRecord
// holds one by that name.
const ExportGraph* capturedGraph(const EtRecord& etrecord, const AotCapture& capture) {
    const std::string g = capture.reference_graph.value_or("");
    if (g == "exported_program")
        return etrecord.exported_program ? &*etrecord.exported_program : nullptr;
    if (g == "edge_dialect_exported_program")
        return etrecord.edgeProgram(capture.method);
    const auto it = etrecord.graph_map.find(g);
    return it == etrecord.graph_map.end() ? nullptr : &it->second;
}

// Whether the capture's records name ops the ETRecord's graph holds, under
// their debug handles where the graph keeps handles (issue 55, class 11). A
// digest in the capture only says which file its writer names: copied from the
// right ETRecord into another program's capture, it matches, and the rows pair
// debug handles of two programs (one row "ok" at -5.1 dB). The graphs
// themselves are what can disagree; said whatever the digest says.
std::optional<std::string> graphDisagreement(const EtRecord& etrecord, const AotCapture& capture) {
    const ExportGraph* graph = capturedGraph(etrecord, capture);
    if (!graph)
        return std::nullopt; // a float model's, or a backend's: not the ETRecord's to judge
    std::unordered_map<std::string_view, const GraphNode*> byName;
    for (const auto& n : graph->nodes)
        byName.emplace(n.name, &n);
    std::size_t disagree = 0, records = 0;
    std::string first;
    for (const auto& r : capture.records) {
        ++records;
        for (const auto& op : r.ops) {
            const auto it = byName.find(op);
            const bool named = it != byName.end();
            const bool handled =
                named && (it->second->debug_handles.empty() ||
                          std::any_of(it->second->debug_handles.begin(), it->second->debug_handles.end(),
                                      [&](std::int64_t h) {
                                          return std::find(r.debug_handle.begin(), r.debug_handle.end(), h) !=
                                                 r.debug_handle.end();
                                      }));
            if (named && handled)
                continue;
            if (first.empty())
                first = "'" + echoedName(op) + "' " +
                        (named ? "is there under another debug handle" : "is not a node of it");
            ++disagree;
            break;
        }
    }
    if (!disagree)
        return std::nullopt;
    return "the capture and the ETRecord disagree on the program: " + std::to_string(disagree) + " of " +
           std::to_string(records) + " records name ops the ETRecord's '" + graph->key +
           "' does not hold under their debug handles (" + first +
           "). Whatever the capture's ETRecord digest says (a digest names a file, and can be copied), its "
           "rows may pair another program's ops: capture this ETRecord";
}

} // namespace

CaptureProvenance checkCaptureProvenance(const Session& s, const std::atomic<bool>* cancelled,
                                         Workspace* workspace) {
    CaptureProvenance p = checkCaptureDigest(s, cancelled, workspace);
    if (!p.warning && s.etrecord && s.capture)
        p.warning = graphDisagreement(*s.etrecord, *s.capture);
    return p;
}

CaptureProvenance checkCaptureDigest(const Session& s, const std::atomic<bool>* cancelled,
                                     Workspace* workspace) {
    CaptureProvenance p;
    if (!s.etrecord_file || !s.capture)
        return p;
    // A capture written since the exporter records the ETRecord's table of
    // contents is checked against it: the CRC-32 of every entry, read from the
    // ZIP's central directory when the ETRecord was opened, instead of hashing
    // the whole file (0.12 s for ViT-S/16's 180 MB, as long again as measuring
    // it). An older capture has only the file's SHA-256.
    if (s.capture->etrecord_entries_sha256 && s.etrecord && !s.etrecord->entries_sha256.empty()) {
        if (*s.capture->etrecord_entries_sha256 != s.etrecord->entries_sha256)
            p.warning = anotherEtRecord("entries SHA-256", *s.capture->etrecord_entries_sha256,
                                        s.etrecord->entries_sha256);
        return p;
    }
    if (!s.capture->etrecord_sha256)
        return p;
    // Hashed once per workspace: another run or capture of the same files reuses it.
    std::string digest =
        workspace ? workspace->sha256(s.etrecord_file, cancelled) : sha256Hex(*s.etrecord_file, cancelled);
    if (digest.empty())
        return p; // cancelled
    p.etrecord_sha256 = std::move(digest);
    if (*p.etrecord_sha256 != *s.capture->etrecord_sha256)
        p.warning = anotherEtRecord("SHA-256", *s.capture->etrecord_sha256, *p.etrecord_sha256);
    return p;
}

} // namespace gapscope
