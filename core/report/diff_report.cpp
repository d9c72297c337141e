#include "core/report/diff_report.h"

#include "core/report/compare_report.h"
#include "core/report/etdump_json.h"
#include "core/report/json_stream.h"
#include "core/report/safe_text.h"
#include "core/report/text_format.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace gapscope {

using json = nlohmann::ordered_json;

namespace {

constexpr int kDiffSchemaVersion = 1;

json optionalNumber(const std::optional<double>& v) {
    return v ? jsonNumber(*v) : json(nullptr);
}

json sideJson(const RunSummary& run) {
    return {
        {"label", run.label},
        {"method", run.method},
        {"run", run.run},
        {"reference_program", run.reference_program.empty() ? json(nullptr) : json(run.reference_program)},
        {"reference_kind", run.reference_kind.empty() ? json(nullptr) : json(run.reference_kind)},
        {"rows", run.rows.size()}};
}

json rowJson(const RunSummary& run, const std::optional<std::size_t>& row) {
    if (!row)
        return nullptr;
    const RunRow& r = run.rows[*row];
    return {{"row", r.index},
            {"compared_node", r.compared_node},
            {"compared_handle", r.compared_handle},
            {"aot_debug_handle", r.aot_debug_handle},
            {"aot_ops", r.aot_ops},
            {"status", rowStatusName(r.status)},
            {"source", r.source.empty() ? json(nullptr) : json(r.source)}};
}

std::string sideName(const RunSummary& run, const std::optional<std::size_t>& row) {
    if (!row)
        return "—";
    const RunRow& r = run.rows[*row];
    return "row " + std::to_string(r.index) + " (" + r.compared_node +
           (r.aot_ops.size() > 1 ? ", group of " + std::to_string(r.aot_ops.size()) : std::string()) + ")";
}

// `text` padded to `width` characters (not bytes: "…" is three), or cut to it.
std::string cell(const std::string& name, std::size_t width) {
    std::string s = terminalText(name, false);
    if (s.size() >= width)
        s = s.substr(0, characterBoundary(s, width - 1)) + "~";
    std::size_t chars = 0;
    for (const char c : s)
        chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return s + std::string(width > chars ? width - chars : 1, ' ');
}

std::string cellNumber(const MetricInfo& m, const std::optional<double>& v) {
    if (!v)
        return "-";
    return m.format == MetricFormat::Precise ? cosineNumber(*v) : shortNumber(*v);
}

} // namespace

namespace {

RunDiff judged(const RunSummary& a, const RunSummary& b, RunMatch match, Metric metric,
               const std::vector<MetricThreshold>& margins) {
    RunDiff d;
    d.a = &a;
    d.b = &b;
    d.match = std::move(match);
    d.metric = metric;
    for (const auto& p : d.match.pairs)
        d.references_disagree += p.referencesDisagree();
    if (const auto why = otherReference(a, b))
        d.other_reference = *why;
    if (const auto why = otherProgram(a, b))
        d.other_program = *why; // no gate trips on pairs of unrelated tensors
    else if (d.other_reference.empty())
        d.regressions = regressions(a, b, d.match, margins);
    return d;
}

} // namespace

RunDiff diffRuns(const RunSummary& a, const RunSummary& b, Metric metric,
                 const std::vector<MetricThreshold>& margins) {
    return judged(a, b, matchRuns(a, b), metric, margins);
}

RunDiff diffRuns(const ComparedRuns& runs, Metric metric) {
    return judged(runs.a, runs.b, runs.match, metric, {});
}

void writeDiffJson(JsonStream& out, const RunDiff& d) {
    out.beginObject();
    out.member("format", "gapscope.diff");
    out.member("schema_version", kDiffSchemaVersion);
    out.member("a", sideJson(*d.a));
    out.member("b", sideJson(*d.b));
    out.member("matched_by", d.match.by_handle ? "debug_handle" : "node_identity");
    out.member("counts",
               {{"matched", d.match.matched}, {"a_only", d.match.a_only}, {"b_only", d.match.b_only}});
    out.member("metric", metricName(d.metric));
    out.member("other_reference", d.other_reference.empty() ? json(nullptr) : json(d.other_reference));
    out.member("references_disagree", d.references_disagree);
    out.key("pairs");
    out.beginArray(); // pair by pair: a million rows are never one document
    for (const auto& p : d.match.pairs) {
        json metrics = json::object();
        for (const auto& m : metricCatalog()) {
            const auto v = metricDelta(*d.a, *d.b, p, m.id);
            metrics[m.name] = {{"a", optionalNumber(v.a)},
                               {"b", optionalNumber(v.b)},
                               {"delta", optionalNumber(v.delta)},
                               {"worse_by", optionalNumber(v.worse_by)}};
        }
        const auto ta = p.a ? d.a->rows[*p.a].time_ms : std::nullopt;
        const auto tb = p.b ? d.b->rows[*p.b].time_ms : std::nullopt;
        out.value({{"a", rowJson(*d.a, p.a)},
                   {"b", rowJson(*d.b, p.b)},
                   {"basis", matchBasisName(p.basis)},
                   {"note", p.note.empty() ? json(nullptr) : json(p.note)},
                   {"references_agree_db", optionalNumber(p.references_db)},
                   {"ranked", p.a && p.b && !p.referencesDisagree()},
                   {"metrics", std::move(metrics)},
                   {"time_ms",
                    {{"a", optionalNumber(ta)},
                     {"b", optionalNumber(tb)},
                     {"b_over_a", ta && tb && *ta > 0 ? optionalNumber(*tb / *ta) : json(nullptr)}}}});
    }
    out.end();
    out.member("ranking", rankByWorsening(*d.a, *d.b, d.match, d.metric));
    json regressions = json::array();
    for (const auto& r : d.regressions)
        regressions.push_back({{"pair", r.pairing},
                               {"metric", metricName(r.margin.metric)},
                               {"margin", r.margin.value},
                               {"a", optionalNumber(r.values.a)},
                               {"b", optionalNumber(r.values.b)},
                               {"worse_by", optionalNumber(r.values.worse_by)}});
    out.member("regressions", regressions);
    out.end();
}

void writeDiffCsv(std::ostream& out, const RunDiff& d) {
    const std::string m = metricName(d.metric);
    out << "pair,a_row,a_ops,b_row,b_ops,basis,note," << m << "_a," << m << "_b," << m << "_delta," << m
        << "_worse_by";
    for (const auto& info : metricCatalog())
        if (info.id != d.metric)
            out << ',' << info.name << "_a," << info.name << "_b";
    out << ",time_ms_a,time_ms_b\r\n";
    const auto cell = [](const std::optional<double>& v) { return v ? number(*v) : std::string(); };
    for (const auto k : rankByWorsening(*d.a, *d.b, d.match, d.metric)) {
        const auto& p = d.match.pairs[k];
        const auto v = metricDelta(*d.a, *d.b, p, d.metric);
        out << k << ',' << (p.a ? std::to_string(d.a->rows[*p.a].index) : "") << ','
            << csvCell(p.a ? join(d.a->rows[*p.a].aot_ops, "; ") : "") << ','
            << (p.b ? std::to_string(d.b->rows[*p.b].index) : "") << ','
            << csvCell(p.b ? join(d.b->rows[*p.b].aot_ops, "; ") : "") << ',' << matchBasisName(p.basis)
            << ',' << csvCell(p.note) << ',' << cell(v.a) << ',' << cell(v.b) << ',' << cell(v.delta) << ','
            << cell(v.worse_by);
        for (const auto& info : metricCatalog())
            if (info.id != d.metric) {
                const auto o = metricDelta(*d.a, *d.b, p, info.id);
                out << ',' << cell(o.a) << ',' << cell(o.b);
            }
        out << ',' << cell(p.a ? d.a->rows[*p.a].time_ms : std::nullopt) << ','
            << cell(p.b ? d.b->rows[*p.b].time_ms : std::nullopt) << "\r\n";
    }
}

void writeDiffMarkdown(std::ostream& out, const RunDiff& d) {
    const MetricInfo& m = metricInfo(d.metric);
    out << "# Gapscope diff\n\n- A: " << markdownText(d.a->label) << " (" << d.a->rows.size()
        << " rows)\n- B: " << markdownText(d.b->label) << " (" << d.b->rows.size()
        << " rows)\n- rows matched by "
        << (d.match.by_handle ? "debug handle (one reference graph)" : "op, code location, shape and order")
        << ": " << d.match.matched << " pairs, " << d.match.a_only << " on A only, " << d.match.b_only
        << " on B only\n";
    if (!d.other_reference.empty())
        out << "\n**Warning:** " << markdownText(d.other_reference) << "\n";
    if (d.references_disagree > 0)
        out << "\n"
            << d.references_disagree
            << " pairs compare tensors that are not one (their references differ): not ranked\n";
    out << "\n| A | B | matched by | " << markdownText(m.label) << " A | " << markdownText(m.label)
        << " B | Δ | worse by | note |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto k : rankByWorsening(*d.a, *d.b, d.match, d.metric)) {
        const auto& p = d.match.pairs[k];
        const auto v = metricDelta(*d.a, *d.b, p, d.metric);
        out << "| " << markdownText(sideName(*d.a, p.a)) << " | " << markdownText(sideName(*d.b, p.b))
            << " | " << matchBasisLabel(p.basis) << " | " << cellNumber(m, v.a) << " | " << cellNumber(m, v.b)
            << " | " << cellNumber(m, v.delta) << " | " << cellNumber(m, v.worse_by) << " | "
            << markdownText(p.note) << " |\n";
    }
    if (!d.regressions.empty()) {
        out << "\n## Worse than the margin\n\n";
        for (const auto& r : d.regressions)
            out << "- " << markdownText(describeRegression(d, r)) << "\n";
    }
}

void writeDiffTable(std::ostream& out, const RunDiff& d, std::size_t limit) {
    const MetricInfo& m = metricInfo(d.metric);
    out << "A: " << echoedName(d.a->label) << ", " << d.a->rows.size()
        << " rows\nB: " << echoedName(d.b->label) << ", " << d.b->rows.size() << " rows\nmatched by "
        << (d.match.by_handle ? "debug handle (one reference graph)" : "op, code location, shape and order")
        << ": " << d.match.matched << " pairs, " << d.match.a_only << " on A only, " << d.match.b_only
        << " on B only\n";
    if (!d.other_reference.empty())
        out << "warning: " << terminalText(d.other_reference, false) << '\n';
    if (d.references_disagree > 0)
        out << d.references_disagree << (d.references_disagree == 1 ? " pair compares" : " pairs compare")
            << " tensors that are not one (their references differ): not ranked, listed last\n";
    out << '\n'
        << cell("A", 34) << cell("B", 34) << cell("matched by", 20) << cell(std::string(m.name) + " A", 11)
        << cell(std::string(m.name) + " B", 11) << cell("delta", 11) << "worse by\n";
    std::size_t shown = 0;
    for (const auto k : rankByWorsening(*d.a, *d.b, d.match, d.metric)) {
        const auto& p = d.match.pairs[k];
        if (!p.a || !p.b)
            continue;
        if (shown++ == limit) {
            out << "… " << (d.match.matched - limit) << " more pairs (--limit, or --csv for all)\n";
            break;
        }
        const auto v = metricDelta(*d.a, *d.b, p, d.metric);
        out << cell(sideName(*d.a, p.a), 34) << cell(sideName(*d.b, p.b), 34)
            << cell(matchBasisLabel(p.basis), 20) << cell(cellNumber(m, v.a), 11)
            << cell(cellNumber(m, v.b), 11) << cell(cellNumber(m, v.delta), 11) << cellNumber(m, v.worse_by)
            << '\n';
        if (!p.note.empty())
            out << "    " << echoedName(p.note) << '\n';
    }
    if (d.match.a_only + d.match.b_only > 0) {
        out << "\nwithout a partner:\n";
        for (const auto& p : d.match.pairs) {
            if (p.a && p.b)
                continue;
            out << "  "
                << (p.a ? "A " + terminalText(sideName(*d.a, p.a), false)
                        : "B " + terminalText(sideName(*d.b, p.b), false));
            if (!p.note.empty())
                out << ": " << echoedName(p.note);
            out << '\n';
        }
    }
}

std::string diffText(const RunDiff& d, DiffFormat format) {
    std::ostringstream text;
    if (format == DiffFormat::Csv) {
        writeDiffCsv(text, d);
    } else if (format == DiffFormat::Markdown) {
        writeDiffMarkdown(text, d);
    } else {
        JsonStream stream([&](std::string_view piece) { text << piece; });
        writeDiffJson(stream, d);
        text << '\n';
    }
    return text.str();
}

std::string describeRegression(const RunDiff& d, const Regression& r) {
    const auto& p = d.match.pairs[r.pairing];
    const MetricInfo& info = metricInfo(r.margin.metric);
    std::string text = echoedName(sideName(*d.a, p.a)) + " → " + echoedName(sideName(*d.b, p.b)) + ": " +
                       info.label + " " + (r.values.a ? shortNumber(*r.values.a) : "—") + " → ";
    if (r.values.b && !std::isnan(*r.values.b)) {
        text += shortNumber(*r.values.b) + ", " + shortNumber(*r.values.worse_by) + " worse";
    } else if (r.values.b) {
        text += "NaN";
    } else {
        const RunRow& row = d.b->rows[*p.b];
        text += std::string("no number (") + rowStatusName(row.status) +
                (row.reason.empty() ? "" : ": " + echoedName(row.reason)) + ")";
    }
    return text + " (margin " + number(r.margin.value) + ")";
}

} // namespace gapscope
