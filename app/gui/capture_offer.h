#pragma once

#include "core/session/capture_request.h"

#include <QFrame>
#include <memory>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;

namespace gapscope {

class CaptureMaker;
struct Session;

// Above a session that has an ETRecord but no reference capture (issue 60):
// "Make the reference", with progress and Cancel, in the exporter's worker
// (CaptureMaker), which starts in the background as soon as such a session is
// shown. When the capture is written, `made` names it and the session is read
// again with it: from a device's folder to the table in one action.
class CaptureOffer : public QFrame {
    Q_OBJECT
public:
    explicit CaptureOffer(QWidget* parent = nullptr);
    // Shown for a session that can be given a capture; hidden (its worker ended) otherwise.
    void setSession(const Session* session);
    CaptureMaker* maker() const { return m_maker; }
    QPushButton* makeButton() const { return m_make; }
    QPushButton* cancelButton() const { return m_cancel; }
    QString status() const;

signals:
    void made(const QString& capture);

private:
    void showIdle();
    void showMaking(const QString& stage, double fraction);

    CaptureMaker* m_maker;
    QLabel* m_text;
    QProgressBar* m_progress;
    QPushButton* m_make;
    QPushButton* m_cancel;
    std::optional<CaptureRequest> m_request;
    QString m_unavailable; // why no exporter can be run, when none can
};

} // namespace gapscope
