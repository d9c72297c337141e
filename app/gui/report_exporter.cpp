#include "app/gui/report_exporter.h"

#include "core/common/job_tracker.h"
#include "core/compare/row_name.h"
#include "core/report/compare_report.h"
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

QString html(const QString& s) {
    return s.toHtmlEscaped();
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
        err = writeText(dir.filePath(QStringLiteral("report.json")), comparisonToJson(c, ctx).dump(2) + "\n");

    // The figures come from views of their own, never shown, fed the same
    // snapshot: only the plots, none of the window's controls or selection.
    GapChart chart;
    chart.setSession(session);
    chart.setMetric(chartMetric);
    if (err.isEmpty())
        err = savePng(chart.plot()->toPixmap(1400, 420).toImage(),
                      dir.filePath(QStringLiteral("gap-chart.png")));
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
    QString sections;
    for (const auto* r : ranked) {
        panel.setRow(r->index);
        if (panel.detailsPending()) {
            // A big tensor's breakdown is computed by the panel's background job.
            QEventLoop wait;
            QObject::connect(&panel, &TensorPanel::detailsReady, &wait, &QEventLoop::quit);
            wait.exec(QEventLoop::ExcludeUserInputEvents);
        }
        const QString name = QStringLiteral("op-%1.png").arg(r->index);
        err = savePng(panel.renderFigure(), dir.filePath(name));
        if (!err.isEmpty())
            return err;
        sections +=
            QStringLiteral("<h3>Row %1: %2</h3><p>relative L2 %3, SNR %4 dB, status %5</p><img src=\"%6\">\n")
                .arg(r->index)
                .arg(html(QString::fromStdString(displayOpName(*r))))
                .arg(*rowMetric(*r, Metric::RelL2), 0, 'g', 3)
                .arg(rowMetric(*r, Metric::Snr).value_or(0), 0, 'g', 3)
                .arg(QString::fromLatin1(rowStatusName(r->status)), name);
    }

    std::ostringstream md;
    writeComparisonMarkdown(md, c, ctx);
    const QString index =
        QStringLiteral(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Gapscope report</title>"
            "<style>body{font-family:sans-serif;margin:2em;max-width:1400px} img{max-width:100%;"
            "border:1px solid #ccc} pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head><body>"
            "<h1>Gapscope report</h1><p><a href=\"gapscope.csv\">CSV</a> · <a href=\"report.json\">JSON"
            "</a></p><h2>Gap per op</h2><img src=\"gap-chart.png\"><h2>Table</h2><pre>%1</pre>"
            "<h2>Worst ops</h2>%2</body></html>\n")
            .arg(html(QString::fromStdString(md.str())), sections);
    return writeText(dir.filePath(QStringLiteral("index.html")), index.toStdString());
}

} // namespace gapscope
