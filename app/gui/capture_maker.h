#pragma once

#include "core/session/capture_request.h"

#include <QObject>
#include <QString>

class QProcess;

namespace gapscope {

// The exporter's worker (`gapscope-capture serve`, issue 60), one per request:
// started as soon as a session without a capture is shown, so that its imports
// (torch, ExecuTorch: most of a small model's capture) are paid before the user
// asks; then sent the request, its progress relayed. Cancel ends the process:
// the capture is written atomically, so nothing half-written is left.
class CaptureMaker : public QObject {
    Q_OBJECT
public:
    explicit CaptureMaker(QObject* parent = nullptr);
    ~CaptureMaker() override; // ends the worker

    // Starts a worker for `request` unless one is already there for it. False,
    // with `why`, when no exporter is found (exporterCommand).
    bool prepare(const CaptureRequest& request, QString* why);
    // Sends the request: at once if the worker is ready, else when it is.
    void make();
    // Ends the worker (made or not); `cancelled` follows when a capture was asked for.
    void cancel();
    // Ends the worker without a word: the session it was for is gone.
    void stop();
    bool preparedFor(const CaptureRequest& request) const;
    bool making() const { return m_requested; }
    bool ready() const { return m_ready; }

signals:
    void readyChanged(bool ready);
    void progressed(const QString& stage, double fraction);
    void finished(const QString& output, long records);
    void failed(const QString& message);
    void cancelled();

private:
    void readLines();
    void ended();

    QProcess* m_process = nullptr;
    CaptureRequest m_request;
    bool m_ready = false;
    bool m_requested = false;
    bool m_sent = false;
    bool m_settled = false; // done or error said: the exit that follows says nothing more
    QByteArray m_pending;
    QByteArray m_errors; // the worker's standard error, its last 4 KiB: the why of a failure
};

} // namespace gapscope
