#include "app/gui/report_exporter.h"

#include "core/common/file_safety.h"
#include "core/compare/row_name.h"
#include "core/report/compare_report.h"
#include "core/report/diff_report.h"
#include "core/report/html_report.h"
#include "core/report/json_stream.h"
#include "core/report/json_text.h"
#include "core/report/text_format.h"
#include "widgets/gap_chart.h"
#include "widgets/plot_export.h"
#include "widgets/post_if_current.h"
#include "widgets/speed_accuracy_chart.h"
#include "widgets/tensor_panel.h"

#include <QDir>
#include <QTimer>
#include <algorithm>
#include <qcustomplot.h>
#include <sstream>

namespace gapscope {

namespace {

QString writeText(const QString& path, const std::string& text) {
    return saveBytes(QByteArray::fromStdString(text), path);
}

} // namespace

ReportExporter::ReportExporter(std::shared_ptr<const Session> session, Metric chartMetric, QString folder,
                               int worstOps, QObject* parent)
    : QObject(parent), m_session(std::move(session)), m_chartMetric(chartMetric), m_folder(std::move(folder)),
      m_worstOps(worstOps) {}

ReportExporter::~ReportExporter() {
    // The hashing job posts to this object: it must end while the object is whole.
    m_hashing.cancel();
    m_hashing.waitForIdle();
}

void ReportExporter::end(const QString& error) {
    if (m_done)
        return;
    m_done = true;
    m_panel.reset();
    emit finished(error);
}

void ReportExporter::start() {
    const auto refuse = [this](const QString& why) {
        // After start() returns, as every other ending: the caller connects first either way.
        QTimer::singleShot(0, this, [this, why] { end(why); });
    };
    if (!m_session || !m_session->comparison) {
        // Headless, this is all the user sees: say why the session has no comparison.
        QStringList why;
        if (m_session) {
            for (const auto& e : m_session->errors)
                why << QString::fromStdString(e.describe());
            for (const auto& m : m_session->missing)
                why << QString::fromLatin1(inputRoleLabel(m)) + QStringLiteral(" missing");
        }
        return refuse(QStringLiteral("nothing to export: no comparison is open") +
                      (why.isEmpty() ? QString() : QStringLiteral(": ") + why.join(QStringLiteral("; "))));
    }
    if (!m_session->complete)
        return refuse(QStringLiteral("the metrics are still being computed (or their loading was cancelled): "
                                     "export once the session is complete"));
    if (const auto unsafe = refuseUnsafeOutputFolder(m_folder.toStdString()))
        return refuse(QString::fromStdString(unsafe->describe()));
    if (!QDir().mkpath(m_folder))
        return refuse(QStringLiteral("%1: cannot create the folder").arg(m_folder));
    // Hashing every input (provenance) reads them all: a background job, so the
    // window stays responsive on a multi-GB session.
    m_hashing.start([this, session = m_session](std::uint64_t generation, const std::atomic<bool>&) {
        ReportContext ctx = reportContextFor(*session);
        postIfCurrent(this, m_hashing, generation, [this, ctx = std::move(ctx)] { writeTables(ctx); });
    });
}

QString ReportExporter::figure(const QImage& image, const QString& file, ReportFigure f) {
    const QByteArray png = pngBytes(image);
    if (png.isEmpty())
        return QStringLiteral("%1: could not encode the image as PNG").arg(file);
    f.png = png.toStdString();
    m_figures.push_back(std::move(f));
    return saveBytes(png, QDir(m_folder).filePath(file));
}

void ReportExporter::writeTables(const ReportContext& ctx) {
    m_context = ctx;
    m_context.session_name = m_sessionName.toStdString();
    m_context.ab = m_ab;
    m_context.ab_metric = m_abMetric;
    const QDir dir(m_folder);
    const Comparison& c = *m_session->comparison;
    std::ostringstream csv;
    writeComparisonCsv(csv, c, ctx.latency.get());
    QString err = writeText(dir.filePath(QStringLiteral("gapscope.csv")), csv.str());
    if (err.isEmpty())
        err = writeText(dir.filePath(QStringLiteral("report.json")),
                        renderJson(comparisonToJson(c, m_context)).text + "\n");
    if (err.isEmpty() && m_ab) { // every pairing of the A/B, as `gapscope-cli diff` writes it
        const RunDiff d = diffRuns(*m_ab, m_abMetric);
        for (const auto& [file, format] : {std::pair<const char*, DiffFormat>{"ab.csv", DiffFormat::Csv},
                                           {"ab.md", DiffFormat::Markdown},
                                           {"ab.json", DiffFormat::Json}})
            if (err.isEmpty())
                err = writeText(dir.filePath(QString::fromLatin1(file)), diffText(d, format));
    }

    // The figures come from views of their own, never shown, fed the same
    // snapshot: only the plots, none of the window's controls or selection.
    if (err.isEmpty()) {
        GapChart chart;
        // The size it is drawn at, before the session: the op labels are spaced for
        // the plot's width (issue 56: a never-shown chart labelled 2 of 13 ops).
        chart.plot()->resize(1400, 420);
        chart.setSession(m_session);
        chart.setMetric(m_chartMetric);
        err = figure(chart.plot()->toPixmap(1400, 420).toImage(), QStringLiteral("gap-chart.png"),
                     {"Gap per op",
                      "The " + metricName(m_chartMetric) + " of each op in execution order",
                      {},
                      SIZE_MAX});
    }
    // Speed against accuracy, when the ETDump timed the run.
    if (err.isEmpty() && m_session->latency) {
        SpeedAccuracyChart speed;
        speed.setSession(m_session);
        speed.setMetric(Metric::Snr);
        err = figure(speed.plot()->toPixmap(1400, 420).toImage(), QStringLiteral("time-vs-gap.png"),
                     {"Time against gap",
                      "Each op's share of the run's time (median over the runs) against its SNR; red: past "
                      "the threshold",
                      {},
                      SIZE_MAX});
    }
    if (!err.isEmpty())
        return end(err);

    // The worst ops by relative L2, each as the tensor panel's six plots.
    for (const auto& r : c.rows)
        if (rowMetric(r, Metric::RelL2))
            m_ranked.push_back(&r);
    std::stable_sort(m_ranked.begin(), m_ranked.end(), [](const ComparisonRow* a, const ComparisonRow* b) {
        return *rowMetric(*a, Metric::RelL2) > *rowMetric(*b, Metric::RelL2);
    });
    m_ranked.resize(
        std::min<std::size_t>(m_ranked.size(), static_cast<std::size_t>(std::max(m_worstOps, 0))));
    m_panel = std::make_unique<TensorPanel>();
    m_panel->setSession(m_session);
    nextFigure();
}

void ReportExporter::nextFigure() {
    while (!m_done && m_next < m_ranked.size()) {
        const ComparisonRow& row = *m_ranked[m_next++];
        m_panel->setRow(row.index);
        if (m_panel->detailsPending()) {
            // A big tensor's breakdown is computed by the panel's background job:
            // rendered, and the next op started, once it is ready.
            connect(
                m_panel.get(), &TensorPanel::detailsReady, this,
                [this, &row] {
                    renderFigure(row);
                    nextFigure();
                },
                Qt::SingleShotConnection);
            return;
        }
        renderFigure(row);
    }
    if (m_done)
        return;
    // One file that holds it all, images included.
    std::ostringstream page;
    writeComparisonHtml(page, *m_session->comparison, m_context, m_figures);
    end(writeText(QDir(m_folder).filePath(QStringLiteral("index.html")), page.str()));
}

void ReportExporter::renderFigure(const ComparisonRow& r) {
    if (m_done)
        return;
    const std::string caption = "relative L2 " + shortNumber(*rowMetric(r, Metric::RelL2)) + ", SNR " +
                                shortNumber(rowMetric(r, Metric::Snr).value_or(0)) + " dB, status " +
                                rowStatusName(r.status);
    const QString err =
        figure(m_panel->renderFigure(), QStringLiteral("op-%1.png").arg(r.index),
               {"Row " + std::to_string(r.index) + ": " + displayOpName(r), caption, {}, r.index});
    if (!err.isEmpty())
        end(err);
}

} // namespace gapscope
