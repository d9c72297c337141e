#pragma once

#include "core/session/session.h"

#include <QObject>
#include <QStringList>
#include <atomic>
#include <memory>

namespace gapscope {

// Loads and compares a session off the UI thread. Every request gets a
// generation number; a result that arrives after a newer request is dropped.
class SessionLoader : public QObject {
    Q_OBJECT
public:
    explicit SessionLoader(QObject* parent = nullptr);

    void loadPaths(const QStringList& paths, const SessionOptions& options = {});
    // The demo session compiled into the binary (resources/demo via Qt resources).
    void loadDemo(const SessionOptions& options = {});
    void cancel();
    bool busy() const { return m_busy; }

signals:
    void started();
    // Events read out of the ETDump's total, throttled.
    void progress(quint64 done, quint64 total);
    void finished(std::shared_ptr<const Session> session, QStringList pathErrors);

private:
    void run(std::function<SessionInputs(std::vector<Error>&)> gather, const SessionOptions& options);

    quint64 m_generation = 0;
    bool m_busy = false;
    // Set by cancel(); the running job's progress callback sees it and stops reading.
    std::shared_ptr<std::atomic<bool>> m_cancelled;
};

// Reads the embedded demo files into memory (names keep their file names).
SessionInputs embeddedDemoInputs();

} // namespace gapscope
