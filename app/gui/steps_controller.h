#pragma once

#include "core/common/job_tracker.h"
#include "core/session/session_steps.h"

#include <QObject>
#include <memory>
#include <string>

namespace gapscope {

// The steps of the window's session (docs/compare-runs.md, "Decode steps"):
// when a complete session's ETDump holds several executions of its method,
// every execution is compared with its own step capture off the UI thread, over
// the loader's workspace and file set (no file read again), and handed out
// once. Switching the run the window shows (a click in the steps view) does
// not compute them again: they are kept per ETDump, debug buffer and method.
class SessionLoader;
class StepsController : public QObject {
    Q_OBJECT
public:
    // `files`: the loader whose sessions this is given (it holds their workspace).
    explicit StepsController(const SessionLoader* files, QObject* parent = nullptr);
    ~StepsController() override;

    // Each complete snapshot of the window's session.
    void sessionCompleted(std::shared_ptr<const Session> session);
    bool busy() const { return m_busy; }
    const std::shared_ptr<const SessionSteps>& steps() const { return m_steps; }

signals:
    void computing(std::size_t executions);
    void progress(std::size_t done, std::size_t total);
    void ready(std::shared_ptr<const gapscope::SessionSteps> steps);
    // The session has one execution (or none): nothing to show, and why.
    void none(const QString& why);

private:
    const SessionLoader* m_files;
    std::shared_ptr<const SessionSteps> m_steps;
    // What m_steps (or the running job) are of: the files as mapped (weak, so
    // that a file unmapped and another mapped at its address is never taken
    // for it), and the method.
    std::weak_ptr<const MappedFile> m_etdump, m_debugBuffer;
    std::string m_method;
    bool m_busy = false;
    JobTracker m_jobs;
};

} // namespace gapscope
