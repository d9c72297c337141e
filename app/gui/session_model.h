#pragma once

#include "core/compare/metric_catalog.h"
#include "core/session/session.h"

#include <QObject>
#include <QStringList>
#include <memory>

namespace gapscope {

class SessionLoader;

// The session the window shows (A), as its views see it: one immutable
// snapshot at a time, judged by the user's threshold, and what changed in it,
// each through a typed signal (issue 57). The one owner of that threshold: the
// loads are judged by it (SessionController reads it here), a saved session
// keeps it, and the editor shows it.
//
// Views and controllers subscribe here
// and read snapshot(); none reads the session out of another widget, and a
// snapshot judged by another threshold is made here once, not in each view.
class SessionModel : public QObject {
    Q_OBJECT
public:
    SessionModel(SessionLoader* loader, const MetricThreshold& threshold, QObject* parent = nullptr);

    // What every view shows; null before a session opens.
    const std::shared_ptr<const Session>& snapshot() const { return m_snapshot; }
    const MetricThreshold& threshold() const { return m_threshold; }
    // The user judges by another threshold (or a saved session brings one back):
    // the snapshot's first divergence is found again, and rejudged() says so.
    // The same threshold again changes nothing.
    void setThreshold(const MetricThreshold& threshold);
    // The load was cancelled before every row was measured.
    void stopMeasuring();

signals:
    // Another session, or another run, method or capture of the same files:
    // every view starts over (its rows may not be measured yet).
    void opened(std::shared_ptr<const Session> snapshot, QStringList pathErrors);
    // Rows [first, last] got their metrics.
    void rowsMeasured(std::shared_ptr<const Session> snapshot, std::size_t first, std::size_t last);
    // Every stage done: outputs, coverage, findings and times are final.
    void completed(std::shared_ptr<const Session> snapshot);
    // The user's threshold changed (the editor, or a saved session bringing its
    // own): the editor shows it. Before rejudged, and also with no session.
    void thresholdChanged(const gapscope::MetricThreshold& threshold);
    // The same rows judged by another threshold: the first divergence and what
    // marks it (filter, chart line, the graph's flag) change, nothing else.
    void rejudged(std::shared_ptr<const Session> snapshot);
    void measuringStopped();

private:
    // `snapshot` judged by the threshold (a copy only when it was loaded with another).
    std::shared_ptr<const Session> judged(std::shared_ptr<const Session> snapshot) const;

    MetricThreshold m_threshold;
    std::shared_ptr<const Session> m_snapshot;
};

} // namespace gapscope
