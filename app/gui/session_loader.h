#pragma once

#include "core/session/session.h"

#include <QObject>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <memory>

namespace gapscope {

// The sessions compiled into the binary.
enum class EmbeddedDemo {
    Xnnpack, // resources/demo: int8 XNNPACK against the float model
    Qnn,     // resources/demo_qnn: QNN 8a8w on the HTP simulator
};

// Loads a session off the UI thread, in stages: `opened` delivers the table
// (rows, shapes, dtypes, coverage; no metric yet), `rowsMeasured` follows as rows
// get their metrics, `completed` when outputs, coverage and findings are final.
// The worker never touches the rows: it measures plans and posts the results,
// which this object applies on the UI thread. Every request gets a generation;
// whatever a superseded or cancelled request posts late is dropped.
class SessionLoader : public QObject {
    Q_OBJECT
public:
    explicit SessionLoader(QObject* parent = nullptr);
    ~SessionLoader() override;

    void loadPaths(const QStringList& paths, const SessionOptions& options = {});
    // A demo session compiled into the binary (Qt resources).
    void loadDemo(EmbeddedDemo demo, const SessionOptions& options = {});
    void cancel();
    // A request is running: from started() until completed() (or cancel()).
    bool busy() const { return m_busy; }

signals:
    void started();
    // What is being done ("Reading", "Measuring"), and how far (throttled).
    void progress(const QString& stage, quint64 done, quint64 total);
    void opened(std::shared_ptr<const Session> session, QStringList pathErrors);
    // Rows [first, last] (row indices) may have changed: some of them got metrics.
    void rowsMeasured(std::size_t first, std::size_t last);
    void completed(std::shared_ptr<const Session> session);

private:
    struct Job;
    void run(std::function<SessionInputs(std::vector<Error>&)> gather, const SessionOptions& options);
    // Runs `fn` on this object's thread unless the job was superseded by then.
    void post(quint64 generation, std::function<void()> fn);

    quint64 m_generation = 0;
    bool m_busy = false;
    // Set by cancel() and by a newer request; the running job stops between steps.
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    // Owned by the UI thread; the worker only reads its inputs, never its rows.
    std::shared_ptr<Session> m_session;
    QThreadPool m_pool;
};

// Reads an embedded demo's files into memory (names keep their file names).
SessionInputs embeddedDemoInputs(EmbeddedDemo demo = EmbeddedDemo::Xnnpack);

} // namespace gapscope
