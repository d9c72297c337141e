#pragma once

#include <QString>

namespace gapscope {

class MainWindow;

// File → Export report: a folder with the CSV, the JSON report, a PNG of the gap
// chart, PNGs of the tensor panel for the worst ops and an index.html showing
// them together. Every file is written atomically. Returns an error message, or
// an empty string on success.
QString exportReportFolder(MainWindow& window, const QString& folder, int worstOps = 3);

} // namespace gapscope
