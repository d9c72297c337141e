#include "app/gui/report_exporter.h"

#include "core/common/job_tracker.h"
#include "core/compare/row_name.h"
#include "core/report/compare_report.h"
#include "core/report/html_report.h"
#include "core/report/json_text.h"
#include "core/report/text_format.h"
#include "widgets/gap_chart.h"
#include "widgets/plot_export.h"
#include "widgets/tensor_panel.h"

#include <QDir>
#include <QEventLoop>
#include <algorithm>
#include <qcustomplot.h>
#include <sstream>

namespace gapscope {

namespace {

QString writeText(const QString& path, const std::string& text) {
    return saveBytes(QByteArray::fromStdString(text), path);
}

} // namespace

QString exportReportFolder(std::shared_ptr<const Session> session, const QString& chartMetric,
                           const QString& folder, int worstOps) {
    if (!session || !session->comparison)
        return QStringLiteral("nothing to export: no comparison is open");
    if (!session->complete)
        return QStringLiteral(
            "the metrics are still being computed (or their loading was cancelled): export once "
            "the session is complete");
    if (!QDir().mkpath(folder))
        return QStringLiteral("%1: cannot create the folder").arg(folder);
    const QDir dir(folder);
    const Comparison& c = *session->comparison;

    // Hashing every input (provenance) reads them all: a background job, with
    // the event loop running, so the window stays responsive on a multi-GB session.
    ReportContext ctx;
    {
        QEventLoop wait;
        bool hashed = false;
        JobTracker hashing;
        hashing.start([&ctx, &wait, &hashed, session](std::uint64_t, const std::atomic<bool>&) {
            ctx = reportContextFor(*session);
            QMetaObject::invokeMethod(
                &wait,
                [&wait, &hashed] {
                    hashed = true;
                    wait.quit();
                },
                Qt::QueuedConnection);
        });
        if (!hashed)
            wait.exec(QEventLoop::ExcludeUserInputEvents);
    }

    std::ostringstream csv;
    writeComparisonCsv(csv, c);
    QString err = writeText(dir.filePath(QStringLiteral("gapscope.csv")), csv.str());
    if (err.isEmpty())
        err = writeText(dir.filePath(QStringLiteral("report.json")),
                        renderJson(comparisonToJson(c, ctx)).text + "\n");

    // The figures come from views of their own, never shown, fed the same
    // snapshot: only the plots, none of the window's controls or selection.
    std::vector<ReportFigure> figures;
    const auto figure = [&](const QImage& image, const QString& file, ReportFigure f) {
        const QByteArray png = pngBytes(image);
        if (png.isEmpty())
            return QStringLiteral("%1: could not encode the image as PNG").arg(file);
        f.png = png.toStdString();
        figures.push_back(std::move(f));
        return saveBytes(png, dir.filePath(file));
    };
    GapChart chart;
    chart.setSession(session);
    chart.setMetric(chartMetric);
    if (err.isEmpty())
        err = figure(chart.plot()->toPixmap(1400, 420).toImage(), QStringLiteral("gap-chart.png"),
                     {"Gap per op",
                      "The " + chartMetric.toStdString() + " of each op in execution order",
                      {},
                      SIZE_MAX});
    if (!err.isEmpty())
        return err;

    // The worst ops by relative L2, each as the tensor panel's six plots.
    std::vector<const ComparisonRow*> ranked;
    for (const auto& r : c.rows)
        if (rowMetric(r, Metric::RelL2))
            ranked.push_back(&r);
    std::stable_sort(ranked.begin(), ranked.end(), [](const ComparisonRow* a, const ComparisonRow* b) {
        return *rowMetric(*a, Metric::RelL2) > *rowMetric(*b, Metric::RelL2);
    });
    ranked.resize(std::min<std::size_t>(ranked.size(), static_cast<std::size_t>(std::max(worstOps, 0))));
    TensorPanel panel;
    panel.setSession(session);
    for (const auto* r : ranked) {
        panel.setRow(r->index);
        if (panel.detailsPending()) {
            // A big tensor's breakdown is computed by the panel's background job.
            QEventLoop wait;
            QObject::connect(&panel, &TensorPanel::detailsReady, &wait, &QEventLoop::quit);
            wait.exec(QEventLoop::ExcludeUserInputEvents);
        }
        const std::string caption = "relative L2 " + shortNumber(*rowMetric(*r, Metric::RelL2)) + ", SNR " +
                                    shortNumber(rowMetric(*r, Metric::Snr).value_or(0)) + " dB, status " +
                                    rowStatusName(r->status);
        err = figure(panel.renderFigure(), QStringLiteral("op-%1.png").arg(r->index),
                     {"Row " + std::to_string(r->index) + ": " + displayOpName(*r), caption, {}, r->index});
        if (!err.isEmpty())
            return err;
    }

    // One file that holds it all, images included.
    std::ostringstream page;
    writeComparisonHtml(page, c, ctx, figures);
    return writeText(dir.filePath(QStringLiteral("index.html")), page.str());
}

} // namespace gapscope
