#pragma once

#include "core/common/job_tracker.h"
#include "core/runs/run_diff.h"
#include "core/session/session.h"

#include <QObject>
#include <QStringList>
#include <memory>

namespace gapscope {

class SessionLoader;

// The A/B comparison (docs/compare-runs.md): the session the window shows is
// A; B is another session opened beside it (another backend, recipe or
// build), loaded by its own SessionLoader, so loading B never cancels A's load
// and costs what opening it alone costs. Once both are complete their rows are
// summarised and paired off the UI thread (compareRuns) and handed out as one
// immutable value; a newer A or B supersedes a pairing still running. When
// both are decode loops, B follows the step A shows.
class CompareController : public QObject {
    Q_OBJECT
public:
    explicit CompareController(QObject* parent = nullptr);
    ~CompareController() override;

    // Loads B from these files (a session folder, or its files), as another file
    // set of A's workspace when given (SessionLoader::loadBeside).
    void openB(const QStringList& paths, std::shared_ptr<Workspace> besideA = nullptr);
    // A, the window's session: each complete snapshot (a new session, another run).
    void setA(std::shared_ptr<const Session> session);
    // Closes B: nothing is compared any more.
    void closeB();

    bool hasB() const { return !m_pathsB.isEmpty(); }
    // B is loading, or the pairing is being made: a screenshot waits for `settled`.
    bool busy() const;
    // B could not be compared (`failed` was emitted); a newer openB clears it.
    bool failedB() const { return m_failedB; }
    const QStringList& pathsB() const { return m_pathsB; }
    SessionLoader* loaderB() const { return m_loaderB; }
    const std::shared_ptr<const ComparedRuns>& runs() const { return m_runs; }
    // The snapshots runs() was made of: its rows' indices are theirs.
    const std::shared_ptr<const Session>& pairedA() const { return m_pairedA; }
    const std::shared_ptr<const Session>& pairedB() const { return m_pairedB; }

signals:
    // The two runs paired: the A/B page shows them.
    void compared(std::shared_ptr<const gapscope::ComparedRuns> runs);
    // Nothing can be compared, and why (B could not be read, has no comparison).
    void failed(const QString& message);
    // The last request is done, one way or the other.
    void settled();

private:
    void pairIfReady();
    // Two decode loops: B is compared at A's step (the same execution of its
    // method), so that the A/B tab pairs step k with step k. True when B is
    // being compared again (the pairing waits for it).
    bool followStep();
    static std::string label(const Session& s);

    SessionLoader* m_loaderB;
    QStringList m_pathsB;
    std::shared_ptr<const Session> m_a, m_b;
    std::shared_ptr<const ComparedRuns> m_runs;
    std::shared_ptr<const Session> m_pairedA, m_pairedB;
    bool m_pairing = false;
    bool m_failedB = false;
    JobTracker m_jobs; // the pairing; after m_loaderB, so it is destroyed (and waited for) first
};

} // namespace gapscope
