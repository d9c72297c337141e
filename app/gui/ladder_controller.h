#pragma once

#include "core/common/job_tracker.h"
#include "core/compare/stage_ladder.h"
#include "core/report/fix_report.h"
#include "core/session/session.h"

#include <QObject>
#include <QString>
#include <memory>

namespace gapscope {

class SessionLoader;

// The stage ladder of the window's session (issue 59): when a session
// completes, its run is compared with every reference beside it (the captures
// offered and those in its stages/ folder) off the UI thread, over the loader's
// workspace (no file read again), and handed out once; a later session
// supersedes it. With fewer than two references there is no ladder, and why.
// The same job reads what gapscope-capture fix wrote beside the session.
class LadderController : public QObject {
    Q_OBJECT
public:
    explicit LadderController(const SessionLoader* files, QObject* parent = nullptr);

    void sessionCompleted(std::shared_ptr<const Session> session);
    bool busy() const { return m_busy; }

signals:
    void ready(std::shared_ptr<const gapscope::StageLadder> ladder);
    void none(const QString& why);
    // gapscope-capture fix's report beside the session (fix/fix.json), read off
    // the UI thread; null without one, or with the reader's error.
    void fixFound(std::shared_ptr<const gapscope::FixReport> report, const QString& error);

private:
    const SessionLoader* m_files;
    bool m_busy = false;
    JobTracker m_jobs;
};

} // namespace gapscope
