#include "core/report/html_report.h"

#include "core/compare/metric_catalog.h"
#include "core/compare/row_status.h"
#include "core/report/diff_report.h"
#include "core/report/text_format.h"

#include <cmath>

namespace gapscope {

std::string base64(const std::string& bytes) {
    static const char* const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const auto n = (static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16) |
                       (static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                       static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 2]));
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += alphabet[(n >> 6) & 63];
        out += alphabet[n & 63];
    }
    if (i < bytes.size()) {
        unsigned n = static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16;
        if (i + 1 < bytes.size())
            n |= static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string htmlEscape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text)
        switch (ch) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += ch;
        }
    return out;
}

namespace {

const char* const kStyle = R"(body{font-family:system-ui,sans-serif;margin:2em;color:#222}
h1{margin-bottom:0}.sub{color:#666}table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f3f3f3;cursor:pointer;position:sticky;top:0}tr.past td{background:#fde2df}
tr.first td{font-weight:bold}.warn{background:#fff4ce;border:1px solid #e0c060;padding:6px;margin:4px 0}
img{max-width:100%;border:1px solid #ccc}figure{margin:1em 0}code{font-size:12px}
.scroll{overflow-x:auto;max-width:100%}
.ops{max-width:28em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap})";

// Click a header: sort by its data-v (numbers) or text; the first click on a
// metric puts the worst first (data-worse="desc" or "asc"), a second flips.
const char* const kScript = R"(document.querySelectorAll('table.sortable').forEach(function(t){
var hs=t.tHead.rows[0].cells;for(var i=0;i<hs.length;i++)(function(c,h){var dir=0;h.onclick=function(){
dir=dir?-dir:(h.dataset.worse==='asc'?1:h.dataset.worse==='desc'?-1:1);var b=t.tBodies[0];
var rs=Array.prototype.slice.call(b.rows);rs.sort(function(x,y){var a=x.cells[c],d=y.cells[c];
var u=a.dataset.v,w=d.dataset.v;if(u!==undefined&&w!==undefined){u=+u;w=+w;
if(isNaN(u))return 1;if(isNaN(w))return -1;return (u-w)*dir;}
return a.textContent.localeCompare(d.textContent)*dir;});rs.forEach(function(r){b.appendChild(r);});};})(i,hs[i]);});)";

std::string img(const ReportFigure& f) {
    return "<figure><img alt=\"" + htmlEscape(f.title) + "\" src=\"data:image/png;base64," + base64(f.png) +
           "\"><figcaption>" + htmlEscape(f.caption) + "</figcaption></figure>\n";
}

std::string metricCell(const ComparisonRow& r, const MetricInfo& m) {
    const auto v = rowMetric(r, m.id);
    if (!v)
        return "<td class=n data-v=\"NaN\">—</td>";
    const std::string shown = m.id == Metric::Cosine ? cosineNumber(*v) : shortNumber(*v);
    return "<td class=n data-v=\"" + (std::isfinite(*v) ? number(*v) : std::string("NaN")) + "\">" + shown +
           "</td>";
}

// A time or a share (scaled to %), sortable; "—" with the reason when there is none.
std::string timeCell(std::optional<double> v, double scale, const std::string& why) {
    if (!v)
        return "<td class=n data-v=\"NaN\" title=\"" + htmlEscape(why) + "\">—</td>";
    return "<td class=n data-v=\"" + number(*v * scale) + "\">" + shortNumber(*v * scale) + "</td>";
}

// The A/B comparison beside the session: what was paired with what, what makes
// it doubtful, and the pairings B made worst (the whole of it: ab.csv, ab.json).
void writeAbSection(std::ostream& out, const ComparedRuns& runs, Metric metric) {
    const RunDiff d = diffRuns(runs, metric);
    const MetricInfo& m = metricInfo(metric);
    out << "<h2>A/B: against " << htmlEscape(runs.b.label) << "</h2><p class=sub>A "
        << htmlEscape(runs.a.label) << " (" << runs.a.rows.size() << " rows), B " << htmlEscape(runs.b.label)
        << " (" << runs.b.rows.size() << " rows); matched by "
        << (d.match.by_handle ? "debug handle (one reference graph)" : "op, code location, shape and order")
        << ": " << d.match.matched << " pairs, " << d.match.a_only << " on A only, " << d.match.b_only
        << " on B only. Every pairing: ab.csv, ab.json.</p>\n";
    if (!d.other_reference.empty())
        out << "<div class=warn>" << htmlEscape(d.other_reference) << "</div>\n";
    if (!d.other_program.empty())
        out << "<div class=warn>" << htmlEscape(d.other_program) << "</div>\n";
    out << "<div class=scroll><table><thead><tr><th>A</th><th>B</th><th>matched by</th><th>"
        << htmlEscape(m.label) << " A</th><th>" << htmlEscape(m.label)
        << " B</th><th>B worse by</th><th>note</th></tr></thead><tbody>\n";
    std::size_t shown = 0;
    const auto side = [](const RunSummary& run, const std::optional<std::size_t>& row) {
        return row ? std::to_string(run.rows[*row].index) + " " + run.rows[*row].compared_node
                   : std::string("—");
    };
    const auto cell = [&](const std::optional<double>& v) {
        return v ? (m.format == MetricFormat::Precise ? cosineNumber(*v) : shortNumber(*v))
                 : std::string("—");
    };
    for (const auto k : rankByWorsening(runs.a, runs.b, runs.match, metric)) {
        const auto& p = runs.match.pairs[k];
        if (!p.a || !p.b)
            continue;
        if (shown++ == 20)
            break;
        const auto v = metricDelta(runs.a, runs.b, p, metric);
        out << "<tr><td>" << htmlEscape(side(runs.a, p.a)) << "</td><td>" << htmlEscape(side(runs.b, p.b))
            << "</td><td>" << matchBasisLabel(p.basis) << "</td><td class=n>" << cell(v.a)
            << "</td><td class=n>" << cell(v.b) << "</td><td class=n>"
            << (p.referencesDisagree() ? std::string("not one tensor") : cell(v.worse_by)) << "</td><td>"
            << htmlEscape(p.note) << "</td></tr>\n";
    }
    out << "</tbody></table></div>\n";
}

} // namespace

void writeComparisonHtml(std::ostream& out, const Comparison& c, const ReportContext& ctx,
                         const std::vector<ReportFigure>& figures) {
    const std::string name = ctx.session_name.empty() ? std::string() : " — " + htmlEscape(ctx.session_name);
    out << "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
           "content=\"width=device-width\"><title>Gapscope report"
        << name << "</title><style>" << kStyle << "</style></head><body>\n<h1>Gapscope report" << name
        << "</h1><p class=sub>Gapscope " << gapscopeVersion() << " · method <code>" << htmlEscape(c.method)
        << "</code> · run " << c.run << " · " << c.rows.size() << " ops compared · threshold "
        << htmlEscape(describeThreshold(ctx.threshold)) << "</p>\n";
    if (ctx.first_divergence)
        out << "<p>⚑ <b>First divergence</b>: row " << ctx.first_divergence->row << " ("
            << htmlEscape(describeThreshold(ctx.first_divergence->threshold))
            << " crossed: " << shortNumber(ctx.first_divergence->value) << ")</p>\n";
    if (const auto top = strongestGain(ctx.introducers))
        out << "<p>▲ <b>The error grows most</b> at row " << top->row << " (" << shortNumber(top->gain_db)
            << " dB)</p>\n";
    for (const auto& w : c.warnings)
        out << "<div class=warn>" << htmlEscape(w) << "</div>\n";

    for (const auto& f : figures)
        if (f.row == SIZE_MAX)
            out << "<h2>" << htmlEscape(f.title) << "</h2>" << img(f);

    out << "<h2>Ops</h2><p class=sub>Click a column to sort (worst first). Rows past the threshold are "
           "red.</p>\n<div class=scroll><table class=sortable><thead><tr><th "
           "data-worse=asc>#</th><th>handles</th><th>AOT "
           "ops</th><th>runtime ops</th><th>shape</th><th>dtype</th><th>status</th>";
    for (const auto& m : metricCatalog())
        out << "<th data-worse=" << (m.higher_is_worse ? "desc" : "asc") << ">" << htmlEscape(m.label)
            << "</th>";
    const ComparisonLatency* latency = ctx.latency.get();
    if (latency)
        out << "<th data-worse=desc>time " << timeScaleName(latency->scale)
            << "</th><th data-worse=desc>time %</th>";
    out << "</tr></thead><tbody>\n";
    for (const auto& r : c.rows) {
        const bool first = ctx.first_divergence && ctx.first_divergence->row == r.index;
        const bool past = crossesThreshold(r, ctx.threshold);
        out << "<tr"
            << (first  ? " class=\"first past\""
                : past ? " class=past"
                       : "")
            << "><td class=n data-v=\"" << r.index << "\">" << r.index << (first ? " ⚑" : "") << "</td><td>"
            << htmlEscape(joinHandles(r.id().aot_debug_handle, ",")) << "</td><td class=ops title=\""
            << htmlEscape(join(r.id().aot_ops, ", ")) << "\">" << htmlEscape(join(r.id().aot_ops, ", "))
            << "</td><td class=ops title=\"" << htmlEscape(join(r.id().runtime_ops, ", ")) << "\">"
            << htmlEscape(join(r.id().runtime_ops, ", ")) << "</td><td>"
            << htmlEscape(join(r.id().shapes(), "; ")) << "</td><td>"
            << htmlEscape(join(r.id().dtypes(), "; ")) << "</td><td title=\"" << htmlEscape(r.reason) << "\">"
            << rowStatusName(r.status) << "</td>";
        for (const auto& m : metricCatalog())
            out << metricCell(r, m);
        if (latency) {
            const RowLatency* t = r.index < latency->rows.size() ? &latency->rows[r.index] : nullptr;
            out << timeCell(t && t->p50 ? t->p50 : std::nullopt, 1, t ? t->reason : std::string())
                << timeCell(t && t->share ? t->share : std::nullopt, 100, {});
        }
        out << "</tr>\n";
    }
    out << "</tbody></table></div>\n";
    if (ctx.ab)
        writeAbSection(out, *ctx.ab, ctx.ab_metric);

    bool any = false;
    for (const auto& f : figures)
        if (f.row != SIZE_MAX) {
            if (!any)
                out << "<h2>Worst ops</h2>\n";
            any = true;
            out << "<h3>" << htmlEscape(f.title) << "</h3>" << img(f);
        }

    if (!c.coverage.empty()) {
        out << "<h2>Coverage</h2><table class=sortable><thead><tr><th>kind</th><th>what</th><th>handles</th>"
               "<th>reason</th></tr></thead><tbody>\n";
        for (const auto& i : c.coverage)
            out << "<tr><td>" << htmlEscape(std::string(coverageKindName(i.kind))) << "</td><td>"
                << htmlEscape(i.what) << "</td><td>" << htmlEscape(joinHandles(i.handles, ",")) << "</td><td>"
                << htmlEscape(i.reason) << "</td></tr>\n";
        out << "</tbody></table>\n";
    }
    out << "<h2>Inputs</h2><table><thead><tr><th>role</th><th>path</th><th>bytes</th><th>SHA-256</th></tr>"
           "</thead><tbody>\n";
    for (const auto& in : ctx.inputs)
        out << "<tr><td>" << htmlEscape(inputRoleKey(in.role)) << "</td><td>" << htmlEscape(in.path)
            << "</td><td class=n>" << in.bytes << "</td><td><code>" << htmlEscape(in.sha256)
            << "</code></td></tr>\n";
    out << "</tbody></table>\n<script>" << kScript << "</script></body></html>\n";
}

} // namespace gapscope
