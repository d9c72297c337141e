#include "core/report/ladder_report.h"

#include "core/report/etdump_json.h"
#include "core/report/text_format.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace gapscope {

using json = nlohmann::ordered_json;

namespace {

json cellJson(const LadderCell& cell) {
    if (cell.snr)
        return jsonNumber(*cell.snr);
    return nullptr;
}

json cellsJson(const std::vector<LadderCell>& cells) {
    json out = json::array();
    for (const auto& c : cells)
        out.push_back(cellJson(c));
    return out;
}

// The reasons a row has no number, once each, keyed by where they are.
json problemsJson(const LadderRow& row) {
    json out = json::object();
    for (std::size_t s = 0; s < row.steps.size(); ++s)
        if (!row.steps[s].snr && !row.steps[s].problem.empty())
            out["step " + std::to_string(s)] = row.steps[s].problem;
    return out;
}

std::string cellText(const LadderCell& cell) {
    if (!cell.snr)
        return "-";
    if (std::isinf(*cell.snr))
        return *cell.snr > 0 ? "inf" : "-inf";
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << *cell.snr;
    return s.str();
}

// `s` cut to `width` code points (whole code points) and padded to it.
std::string padded(const std::string& s, std::size_t width) {
    std::string out;
    std::size_t shown = 0;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t len = 1;
        while (i + len < s.size() && (static_cast<unsigned char>(s[i + len]) & 0xC0) == 0x80)
            ++len;
        if (shown + 1 >= width && i + len < s.size()) {
            out += "~";
            ++shown;
            break;
        }
        out.append(s, i, len);
        ++shown;
        i += len;
    }
    return out + std::string(width > shown ? width - shown : 1, ' ');
}

} // namespace

json stageLadderToJson(const StageLadder& ladder) {
    json stages = json::array();
    for (std::size_t s = 0; s < ladder.stages.size(); ++s) {
        const bool device = ladder.stages[s] == LadderStage::Device;
        stages.push_back({{"stage", ladderStageKey(ladder.stages[s])},
                          {"label", ladderStageLabel(ladder.stages[s])},
                          {"graph", device ? json(nullptr) : json(ladder.graphs[s])},
                          {"file", device ? json(ladder.device_path) : json(ladder.capture_paths[s])}});
    }
    json steps = json::array();
    for (std::size_t s = 0; s + 1 < ladder.stages.size(); ++s)
        steps.push_back({{"from", ladderStageKey(ladder.stages[s])},
                         {"to", ladderStageKey(ladder.stages[s + 1])},
                         {"label", ladder.step_labels[s]},
                         {"ops_lost_most", ladder.worst_counts[s]}});
    json rows = json::array();
    for (const auto& r : ladder.rows) {
        json share = json::array();
        for (const auto& v : r.share)
            share.push_back(v ? jsonNumber(*v) : json(nullptr));
        rows.push_back({{r.output ? "output" : "row", r.row},
                        {"name", r.name},
                        {"step_snr_db", cellsJson(r.steps)},
                        {"step_share", share},
                        {"lost_most", r.worst_step ? json(ladder.step_labels[*r.worst_step]) : json(nullptr)},
                        {"snr_vs_first_db", cellsJson(r.against_first)},
                        {"device_snr_db", cellsJson(r.device)},
                        {"problems", problemsJson(r)}});
    }
    return {{"method", ladder.method}, {"run", ladder.run}, {"stages", stages},
            {"steps", steps},          {"rows", rows},      {"notes", ladder.notes}};
}

void writeStageLadder(std::ostream& out, const StageLadder& ladder) {
    out << "\nstage ladder (method " << ladder.method << ", run " << ladder.run << "):\n";
    for (std::size_t s = 0; s < ladder.stages.size(); ++s) {
        out << "  " << padded(ladderStageLabel(ladder.stages[s]), 30);
        if (s < ladder.capture_paths.size())
            out << ladder.capture_paths[s] << " (" << ladder.graphs[s] << ")";
        else
            out << ladder.device_path;
        out << '\n';
    }
    for (const auto& note : ladder.notes)
        out << "  note: " << note << '\n';
    if (ladder.stages.size() < 2)
        return;
    out << "SNR (dB) each step adds, the step's stage against the stage before; and the step that loses the "
           "most:\n";
    constexpr std::size_t nameWidth = 36;
    std::vector<std::size_t> widths;
    out << "  " << padded("op", nameWidth);
    for (std::size_t s = 1; s < ladder.stages.size(); ++s) {
        const auto& label = ladder.step_labels[s - 1];
        widths.push_back(std::max<std::size_t>(label.size() + 2, 10));
        out << padded(label, widths.back());
    }
    out << "lost most at\n";
    for (const auto& r : ladder.rows) {
        out << "  " << padded(r.name, nameWidth);
        for (std::size_t s = 0; s < r.steps.size(); ++s)
            out << padded(cellText(r.steps[s]), widths[s]);
        if (r.worst_step)
            out << ladder.step_labels[*r.worst_step] << " ("
                << static_cast<int>(std::lround(100 * r.share[*r.worst_step].value_or(0))) << "%)";
        else
            out << "-";
        out << '\n';
    }
    out << "steps that lose the most:";
    for (std::size_t s = 0; s < ladder.worst_counts.size(); ++s)
        out << (s ? ", " : " ") << ladder.step_labels[s] << " " << ladder.worst_counts[s]
            << (ladder.worst_counts[s] == 1 ? " op" : " ops");
    out << '\n';
}

} // namespace gapscope
