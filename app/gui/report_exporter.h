#pragma once

#include "core/common/job_tracker.h"
#include "core/report/html_report.h"
#include "core/report/report_context.h"
#include "core/session/session.h"

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

namespace gapscope {

class TensorPanel;

// File → Export report: a folder with the CSV, the JSON report, a PNG of the gap
// chart (of `chartMetric`), a PNG of the tensor panel's plots for each of the
// worst ops and an index.html showing them together. Rendered from the snapshot
// by views of its own, never shown: the window is not touched. Every file is
// written atomically.
//
// An export is a series of steps driven by the event loop, never a nested one:
// the inputs are hashed on a background job, a big tensor's breakdown arrives
// from the tensor panel's job, and the UI thread only renders and writes between
// them, so the window stays responsive and closing it mid-export is safe (the
// destructor cancels and waits for the hashing). `finished` says how it ended.
class ReportExporter : public QObject {
    Q_OBJECT
public:
    ReportExporter(std::shared_ptr<const Session> session, Metric chartMetric, QString folder,
                   int worstOps = 3, QObject* parent = nullptr);
    ~ReportExporter() override;

    // What the report is called ("vit/portable"): its title says it.
    void setSessionName(const QString& name) { m_sessionName = name; }
    // The A/B comparison beside the session: a section of the report, and
    // ab.csv, ab.json and ab.md beside it.
    void setComparedRuns(std::shared_ptr<const ComparedRuns> runs, Metric metric) {
        m_ab = std::move(runs);
        m_abMetric = metric;
    }
    // Starts the export; `finished` follows (also for an export refused at once).
    void start();

signals:
    // An error message, or empty on success.
    void finished(const QString& error);

private:
    void writeTables(const ReportContext& ctx);
    // Renders the worst ops one by one, waiting for a pending breakdown.
    void nextFigure();
    void renderFigure(const ComparisonRow& row);
    void end(const QString& error);
    QString figure(const QImage& image, const QString& file, ReportFigure f);

    std::shared_ptr<const Session> m_session;
    Metric m_chartMetric;
    QString m_folder;
    int m_worstOps;
    ReportContext m_context;
    QString m_sessionName;
    std::shared_ptr<const ComparedRuns> m_ab;
    Metric m_abMetric = Metric::Snr;
    std::vector<ReportFigure> m_figures;
    std::vector<const ComparisonRow*> m_ranked;
    std::size_t m_next = 0;
    std::unique_ptr<TensorPanel> m_panel;
    bool m_done = false;
    JobTracker m_hashing;
};

} // namespace gapscope
