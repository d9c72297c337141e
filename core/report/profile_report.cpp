#include "core/report/profile_report.h"

#include "core/report/safe_text.h"
#include "core/report/text_format.h"

#include <algorithm>
#include <iomanip>

namespace gapscope {

namespace {

nlohmann::ordered_json statOrNull(const std::optional<PerfStats>& perf, double PerfStats::*field) {
    return perf ? nlohmann::ordered_json(*perf.*field) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json delegateId(const ProfiledEvent& e) {
    if (e.delegate_id_int)
        return *e.delegate_id_int;
    if (e.delegate_id_str)
        return *e.delegate_id_str;
    return nullptr;
}

// A name in a column of `width` characters: one line, escaped, cut with "…" to
// fit, padded with spaces (counted in characters, not bytes).
std::string column(const std::string& text, std::size_t width) {
    std::string safe = terminalText(text, false);
    if (safe.size() >= width)
        safe = safe.substr(0, characterBoundary(safe, width - 2)) + "…";
    std::size_t characters = 0;
    for (const char c : safe)
        characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return safe + std::string(width > characters ? width - characters : 1, ' ');
}

} // namespace

nlohmann::ordered_json profileToJson(const ProfileTable& table) {
    nlohmann::ordered_json doc;
    doc["format"] = "gapscope.profile";
    doc["schema_version"] = 1;
    doc["source_time_scale"] = timeScaleName(table.source);
    doc["time_scale"] = timeScaleName(table.target);
    auto events = nlohmann::ordered_json::array();
    for (const auto& block : table.blocks)
        for (const auto& e : block.events) {
            nlohmann::ordered_json row;
            row["event_block_name"] = block.name;
            row["event_name"] = e.name;
            row["raw"] = e.raw.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.raw);
            row["p10"] = statOrNull(e.perf, &PerfStats::p10);
            row["p50"] = statOrNull(e.perf, &PerfStats::p50);
            row["p90"] = statOrNull(e.perf, &PerfStats::p90);
            row["avg"] = statOrNull(e.perf, &PerfStats::avg);
            row["min"] = statOrNull(e.perf, &PerfStats::min);
            row["max"] = statOrNull(e.perf, &PerfStats::max);
            row["is_delegated_op"] = e.is_delegated_op;
            row["delegate_backend_name"] = e.delegate_backend_name.empty()
                                               ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(e.delegate_backend_name);
            row["delegate_debug_identifier"] = delegateId(e);
            row["instruction_id"] = e.instruction_id;
            row["framework"] = e.framework;
            row["runs"] = block.runs;
            events.push_back(std::move(row));
        }
    doc["events"] = std::move(events);
    doc["notes"] = table.notes;
    return doc;
}

void writeProfileCsv(std::ostream& out, const ProfileTable& table) {
    const std::string unit = timeScaleName(table.target);
    out << "event_block_name,event_name,runs,p10 (" << unit << "),p50 (" << unit << "),p90 (" << unit
        << "),avg (" << unit << "),min (" << unit << "),max (" << unit
        << "),is_delegated_op,delegate_backend_name,delegate_debug_identifier,instruction_id\n";
    out << std::setprecision(17);
    for (const auto& block : table.blocks)
        for (const auto& e : block.events) {
            out << csvCell(block.name) << ',' << csvCell(e.name) << ',' << e.raw.size();
            for (double PerfStats::*f : {&PerfStats::p10, &PerfStats::p50, &PerfStats::p90, &PerfStats::avg,
                                         &PerfStats::min, &PerfStats::max}) {
                out << ',';
                if (e.perf)
                    out << *e.perf.*f;
            }
            out << ',' << (e.is_delegated_op ? "true" : "false") << ',' << csvCell(e.delegate_backend_name)
                << ','
                << (e.delegate_id_int ? std::to_string(*e.delegate_id_int)
                                      : csvCell(e.delegate_id_str.value_or("")))
                << ',' << e.instruction_id << '\n';
        }
}

void writeProfileText(std::ostream& out, const ProfileTable& table) {
    const std::string unit = timeScaleName(table.target);
    for (const auto& block : table.blocks) {
        out << "block '" << echoedName(block.name, 120) << "': " << block.runs.size() << " run"
            << (block.runs.size() == 1 ? "" : "s") << ", " << block.events.size() << " events (" << unit
            << ")\n";
        // The names whole (issue 56: XNNPACK's "Fully Connected (NC, QD8, F32, QC4W) GEMM #3" were
        // cut at 40), up to 72 characters; the Inspector's columns p10, p50, p90, avg, min, max.
        std::size_t width = 12;
        for (const auto& e : block.events)
            width = std::max(width, std::min<std::size_t>(terminalText(e.name, false).size() + 2, 72));
        out << "  " << std::left << std::setw(static_cast<int>(width)) << "event";
        for (const char* h : {"p10", "p50", "p90", "avg", "min", "max"})
            out << std::setw(10) << h;
        out << "delegate\n";
        for (const auto& e : block.events) {
            out << "  " << column(e.name, width);
            if (e.perf)
                for (const double v :
                     {e.perf->p10, e.perf->p50, e.perf->p90, e.perf->avg, e.perf->min, e.perf->max})
                    out << std::setw(10) << shortNumber(v);
            else
                out << std::setw(60) << "(no profiling)";
            out << (e.is_delegated_op
                        ? echoedName(e.delegate_backend_name.empty() ? "yes" : e.delegate_backend_name, 30)
                        : std::string())
                << '\n';
        }
    }
    for (const auto& n : table.notes)
        out << "note: " << echoedName(n, 400) << '\n';
}

} // namespace gapscope
