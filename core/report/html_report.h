#pragma once

#include "core/report/compare_report.h"

#include <ostream>
#include <string>
#include <vector>

namespace gapscope {

// A picture for the HTML report, as PNG bytes (rendered by the app).
struct ReportFigure {
    std::string title;
    std::string caption;
    std::string png;
    std::size_t row = SIZE_MAX; // the row it shows, SIZE_MAX for the whole session
};

// One self-contained HTML file (no external file, script or font: it opens in
// any browser, offline, and travels as one attachment): the inputs with their
// SHA-256, the threshold and findings, the warnings, the figures inline as
// data: URIs, the table of every row with every metric (click a header to
// sort, worst-first on the first click) and the coverage. Text is escaped; the
// numbers are the ones the CSV and JSON hold.
void writeComparisonHtml(std::ostream& out, const Comparison& c, const ReportContext& ctx,
                         const std::vector<ReportFigure>& figures);

// RFC 4648 base64, for data: URIs.
std::string base64(const std::string& bytes);
std::string htmlEscape(const std::string& text);

} // namespace gapscope
