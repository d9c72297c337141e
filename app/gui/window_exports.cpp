#include "app/gui/window_exports.h"

#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/session_loader.h"
#include "app/gui/steps_controller.h"
#include "core/common/atomic_file.h"
#include "core/report/compare_report.h"
#include "core/report/diff_report.h"
#include "widgets/graph_view.h"
#include "widgets/plot_export.h"

#include <QCoreApplication>
#include <QTimer>
#include <sstream>

namespace gapscope {

QString writeAbExport(const ComparedRuns* runs, Metric metric, const QString& path,
                      RunDiffView::ExportFormat format) {
    if (!runs)
        return QCoreApplication::translate("gapscope::MainWindow",
                                           "Nothing to export: no A/B comparison is shown");
    static constexpr DiffFormat kAs[] = {DiffFormat::Csv, DiffFormat::Json, DiffFormat::Markdown};
    const std::string text = diffText(diffRuns(*runs, metric), kAs[static_cast<int>(format)]);
    if (auto err = writeFileAtomically(path.toStdString(), std::string_view(text)))
        return QString::fromStdString(err->describe());
    return {};
}

bool writeOpsCsv(const Session* snapshot, const QString& path) {
    if (!snapshot || !snapshot->comparison || !snapshot->complete)
        return false;
    std::ostringstream out;
    writeComparisonCsv(out, *snapshot->comparison, snapshot->latency.get());
    return !writeFileAtomically(path.toStdString(), std::string_view(out.str()));
}

void screenshotWhenSettled(MainWindow& window, const QString& path, std::function<void(bool)> done) {
    MainWindow* w = &window;
    CompareController* compare = window.comparison();
    // B failed: nothing more will settle, and A's page is shot as it is.
    if (compare->busy() ||
        (compare->hasB() && window.loader()->busy() && !compare->runs() && !compare->failedB())) {
        // A/B: both sessions, and their pairing, first.
        QObject::connect(
            compare, &CompareController::settled, w,
            [w, path, done] { screenshotWhenSettled(*w, path, done); }, Qt::SingleShotConnection);
        return;
    }
    auto shoot = [w, path, done] {
        // Let layouts and plots settle (the graph's layout too) before grabbing.
        auto grabNow = [w, path, done] {
            QTimer::singleShot(200, w,
                               [w, path, done] { done(savePng(w->grab().toImage(), path).isEmpty()); });
        };
        GraphView* graph = w->inspector()->graphView();
        StepsController* busy = w->steps()->busy() ? w->steps() : w->stepsB()->busy() ? w->stepsB() : nullptr;
        if (graph->layoutPending())
            QObject::connect(graph, &GraphView::laidOut, w, grabNow, Qt::SingleShotConnection);
        else if (busy) // the steps being compared, then look again
            QObject::connect(
                busy, &StepsController::ready, w, [w, path, done] { screenshotWhenSettled(*w, path, done); },
                Qt::SingleShotConnection);
        else
            grabNow();
    };
    if (window.loader()->busy())
        QObject::connect(w, &MainWindow::sessionShown, w, shoot, Qt::SingleShotConnection);
    else
        shoot();
}

} // namespace gapscope
