#include "app/gui/report_exporter.h"

#include "app/gui/main_window.h"
#include "core/common/atomic_file.h"
#include "core/report/compare_report.h"
#include "widgets/gap_chart.h"
#include "widgets/tensor_panel.h"

#include <QBuffer>
#include <QDir>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QPixmap>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <sstream>

namespace gapscope {

namespace {

QString writeText(const QString& path, const std::string& text) {
    if (auto err = writeFileAtomically(path.toStdString(), std::string_view(text)))
        return QString::fromStdString(err->describe());
    return {};
}

QString writePng(const QString& path, const QPixmap& pixmap) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!pixmap.save(&buffer, "PNG"))
        return QStringLiteral("%1: could not encode the image").arg(path);
    return writeText(path, bytes.toStdString());
}

QString html(const QString& s) {
    return s.toHtmlEscaped();
}

} // namespace

QString exportReportFolder(MainWindow& window, const QString& folder, int worstOps) {
    const auto session = window.session();
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

    // Hashing every input (provenance) reads them all: on a worker, with the
    // event loop running, so the window stays responsive on a multi-GB session.
    QFutureWatcher<ReportContext> hashing;
    QEventLoop wait;
    QObject::connect(&hashing, &QFutureWatcher<ReportContext>::finished, &wait, &QEventLoop::quit);
    hashing.setFuture(QtConcurrent::run([session] { return reportContextFor(*session); }));
    if (!hashing.isFinished())
        wait.exec(QEventLoop::ExcludeUserInputEvents);
    const ReportContext ctx = hashing.result();

    std::ostringstream csv;
    writeComparisonCsv(csv, c);
    QString err = writeText(dir.filePath(QStringLiteral("gapscope.csv")), csv.str());
    if (err.isEmpty())
        err = writeText(dir.filePath(QStringLiteral("report.json")), comparisonToJson(c, ctx).dump(2) + "\n");
    if (err.isEmpty())
        err = writePng(dir.filePath(QStringLiteral("gap-chart.png")), window.chart()->grab());
    if (!err.isEmpty())
        return err;

    // The worst ops by relative L2, with the panel showing each in turn.
    std::vector<const ComparisonRow*> ranked;
    for (const auto& r : c.rows)
        if (rowMetric(r, Metric::RelL2))
            ranked.push_back(&r);
    std::stable_sort(ranked.begin(), ranked.end(), [](const ComparisonRow* a, const ComparisonRow* b) {
        return *rowMetric(*a, Metric::RelL2) > *rowMetric(*b, Metric::RelL2);
    });
    ranked.resize(std::min<std::size_t>(ranked.size(), static_cast<std::size_t>(std::max(worstOps, 0))));
    const auto previous = window.tensorPanel()->row();
    QString sections;
    for (const auto* r : ranked) {
        window.tensorPanel()->setRow(r->index);
        const QString name = QStringLiteral("op-%1.png").arg(r->index);
        err = writePng(dir.filePath(name), window.tensorPanel()->grab());
        if (!err.isEmpty())
            break;
        QStringList ops;
        for (const auto& o : r->aot_ops)
            ops << QString::fromStdString(o);
        sections +=
            QStringLiteral("<h3>Row %1: %2</h3><p>relative L2 %3, SNR %4 dB, status %5</p><img src=\"%6\">\n")
                .arg(r->index)
                .arg(html(ops.join(QStringLiteral(", "))))
                .arg(*rowMetric(*r, Metric::RelL2), 0, 'g', 3)
                .arg(rowMetric(*r, "snr").value_or(0), 0, 'g', 3)
                .arg(QString::fromLatin1(rowStatusName(r->status)), name);
    }
    window.tensorPanel()->setRow(previous);
    if (!err.isEmpty())
        return err;

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
