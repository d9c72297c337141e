#pragma once

#include "core/common/job_tracker.h"
#include "core/session/session.h"

#include <QObject>
#include <QStringList>
#include <functional>
#include <memory>

namespace gapscope {

// The sessions compiled into the binary.
enum class EmbeddedDemo {
    Xnnpack, // resources/demo: int8 XNNPACK against the float model
    Qnn,     // resources/demo_qnn: QNN 8a8w on the HTP simulator
};

// Loads a session off the UI thread, in stages, as a series of immutable
// snapshots: `opened` delivers the table (rows, shapes, dtypes, coverage; no
// metric yet), `measured` newer snapshots as rows get their metrics, `completed`
// the final one (outputs, coverage and findings). The worker measures its own
// copy of the session and publishes copies of it; a view swaps the snapshot it
// holds and never sees an object change (Heaptrack's parser hand-off). Every
// request is a job of one JobTracker: whatever a superseded or cancelled one
// posts late is dropped, and cancelling stops it inside big tensors too.
class SessionLoader : public QObject {
    Q_OBJECT
public:
    explicit SessionLoader(QObject* parent = nullptr);
    ~SessionLoader() override;

    // Reads these files afresh: a new workspace of parsed inputs.
    void loadPaths(const QStringList& paths, const SessionOptions& options = {});
    // A demo session compiled into the binary (Qt resources).
    void loadDemo(EmbeddedDemo demo, const SessionOptions& options = {});
    // Opens these files as another file set of `workspace` (files both name are
    // parsed once), and loads that set; the earlier sets stay open for
    // comparisons. The A/B tab opens B this way beside A, in A's workspace
    // (another loader's). Null: a fresh load.
    void loadBeside(const QStringList& paths, std::shared_ptr<Workspace> workspace,
                    const SessionOptions& options = {});
    // Cancels, and lets go of the workspace (B closed: A's inputs are not kept for it).
    void release();
    // Compares the file set loaded last again with other options (run, method,
    // capture, debug buffer) over the workspace: no file is read again, only
    // what depends on the options is computed. False, and nothing started, when
    // no load has delivered its workspace yet (the caller loads afresh).
    bool recompare(const SessionOptions& options);
    // The parsed inputs of every file set loaded since the last fresh load
    // (null before one has opened), and the set loaded last.
    std::shared_ptr<Workspace> workspace() const { return m_workspace; }
    FileSetId fileSet() const { return m_fileSet; }
    void cancel();
    // A request is running: from started() until completed() (or cancel()).
    bool busy() const { return m_busy; }
    // Jobs not yet returned, superseded and cancelled ones included: at 0, all
    // they will ever deliver is posted (tests wait on this, not on a sleep).
    int jobsRunning() const { return m_jobs.running(); }
    // The least time between two snapshots of rows being measured (default
    // 100 ms; tests set 0 to see every batch, whatever the machine's speed).
    void setSnapshotInterval(int ms) { m_snapshotIntervalMs = ms; }

signals:
    void started();
    // What is being done ("Reading", "Measuring"), and how far (throttled).
    void progress(const QString& stage, quint64 done, quint64 total);
    void opened(std::shared_ptr<const Session> snapshot, QStringList pathErrors);
    // A newer snapshot of the same session, in which rows [first, last] (row
    // indices) got their metrics since the previous one.
    void measured(std::shared_ptr<const Session> snapshot, std::size_t first, std::size_t last);
    void completed(std::shared_ptr<const Session> snapshot);

private:
    // Gathers the files (when `gather` is set) into the workspace as a new set,
    // or compares `options.file_set` of `options.workspace`.
    void run(std::function<SessionInputs(std::vector<Error>&)> gather, const SessionOptions& options);
    // A fresh load: the workspace of the previous files goes.
    void runFresh(std::function<SessionInputs(std::vector<Error>&)> gather, const SessionOptions& options);
    // Runs `fn` on this object's thread unless the job was superseded by then.
    void post(std::uint64_t generation, std::function<void()> fn);

    bool m_busy = false;
    JobTracker m_jobs;
    std::shared_ptr<Workspace> m_workspace;
    FileSetId m_fileSet = 0;
    int m_snapshotIntervalMs = 100;
};

// Reads an embedded demo's files into memory (names keep their file names).
SessionInputs embeddedDemoInputs(EmbeddedDemo demo = EmbeddedDemo::Xnnpack);

} // namespace gapscope
