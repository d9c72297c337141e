#pragma once

#include "widgets/run_diff_view.h"

#include <QString>
#include <functional>

namespace gapscope {

class MainWindow;
struct ComparedRuns;
struct Session;

// What the window writes besides the report (report_exporter.h), each atomically.
// The A/B result, as `gapscope-cli diff` writes it, by the metric of the A/B tab.
// The error, or empty.
QString writeAbExport(const ComparedRuns* runs, Metric metric, const QString& path,
                      RunDiffView::ExportFormat format);
// The op table of a complete session, as `gapscope-cli compare --csv` writes it.
bool writeOpsCsv(const Session* session, const QString& path);
// The window as a PNG once everything it shows has settled (the load, B and
// their pairing, the graph's layout, the steps), then `done` (true when written).
void screenshotWhenSettled(MainWindow& window, const QString& path, std::function<void(bool)> done);

} // namespace gapscope
