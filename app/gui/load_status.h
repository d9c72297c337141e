#pragma once

#include "core/session/session.h"

#include <QObject>
#include <QString>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QStatusBar;

namespace gapscope {

class SessionLoader;

// The window's status bar during and after a load: the loader's stage and
// progress with a Cancel button, then the session's state ("no op crosses SNR
// 20 dB") and, when no op crosses, a link to the op that comes closest.
class LoadStatus : public QObject {
    Q_OBJECT
public:
    LoadStatus(QStatusBar* bar, SessionLoader* loader, QObject* parent = nullptr);

    // The load is over (finished or cancelled): the progress bar and Cancel go.
    void loadEnded();
    void setText(const QString& text);
    // The status of a complete session (none: nothing said), judged by its threshold.
    void showSession(const Session* snapshot, std::optional<std::size_t> topIntroducer);

    QLabel* line() const { return m_status; }
    QLabel* worstLink() const { return m_worstLink; }
    QPushButton* cancelButton() const { return m_cancel; }

signals:
    void cancelRequested();
    // The worst op's link was followed.
    void rowRequested(std::size_t row);

private:
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    // A label, not showMessage: that repaints the status bar at once, which
    // paints every dirty part of the window inside the slot that set it; a
    // label's text is painted with the next update. (The longest loading stall
    // did not change measurably: the progress bar's setValue repaints at once
    // too; docs/performance.md.)
    QLabel* m_status;
    QLabel* m_worstLink; // "worst: row 5 (conv2d, 24.1)" when no op crosses the threshold
};

} // namespace gapscope
