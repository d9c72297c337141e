#pragma once

#include "app/gui/drop_prompt.h"
#include "core/session/session.h"
#include "widgets/run_diff_view.h"

#include <QMainWindow>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace gapscope {

class CaptureOffer;
class AbStepsWiring;
class CompareController;
class StepsController;
class LadderController;
class DebugBufferPicker;
class EventBrowser;
class InspectorView;
class LoadStatus;
class SessionBanner;
class SessionController;
class SessionModel;
class SessionLoader;
class WelcomePage;
class WindowActions;

// Composes the welcome page, the inspector, the banner, the menus and the status
// bar; owns no analysis logic. Sessions are the controller's, views the inspector's.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Files join the open session (a debug buffer dropped on the banner).
    // Returns the error (an unreadable saved session), also shown in the banner.
    QString openPaths(const QStringList& paths);
    // A drop or File → Open: a session of its own asks whether to open it
    // instead, beside (A/B) or add its files (drop_prompt.h); other files join.
    void openOrAsk(const QStringList& paths);
    // Replaces the open session (Recent sessions).
    void openAnew(const QStringList& paths);
    // A session is open and these paths are a session of their own.
    bool opensAnotherSession(const QStringList& paths) const;
    // Reads the same files again, keeping the filter and the selected op (F5).
    void reload();
    // Tests answer the drop question without a dialog.
    void setDropChooser(DropChooser chooser) { m_dropChooser = std::move(chooser); }
    void openDemo();
    void openQnnDemo();
    bool openSessionFile(const QString& path);
    bool saveSession(const QString& path);
    bool exportCsv(const QString& path);
    // Renders the window to a PNG once the current load has finished, then calls `done`.
    void screenshotWhenLoaded(const QString& path, std::function<void(bool)> done);

    // The snapshot every view shows (the session model's).
    std::shared_ptr<const Session> session() const;
    SessionModel* sessionModel() const { return m_model; }
    InspectorView* inspector() const { return m_inspector; }
    QLabel* banner() const;
    QLabel* statusLine() const;
    QLabel* worstOpLink() const;
    DebugBufferPicker* debugBufferPicker() const { return m_debugBufferPicker; }
    CaptureOffer* captureOffer() const { return m_captureOffer; }
    SessionLoader* loader() const;
    QPushButton* cancelButton() const;
    SessionController* controller() const { return m_sessions; }
    // B of the A/B tab: another session opened beside this one (docs/compare-runs.md).
    CompareController* comparison() const { return m_compare; }
    StepsController* steps() const { return m_steps; }
    // B's steps, when B (the A/B comparison's) is a decode loop too.
    StepsController* stepsB() const { return m_stepsB; }
    LadderController* ladder() const { return m_ladder; }
    void compareWith(const QStringList& paths);
    // B: the verified run gapscope-capture fix wrote (its folder), A and B both
    // against the float model (the Stages tab's "Compare with the fixed run").
    void compareWithFixedRun(const QString& folder);
    // A/B: B's files become the session, and A's are compared beside them.
    // False (nothing done) when there is no B, or A is the built-in demo.
    bool swapRuns();
    // The A/B result, as `gapscope-cli diff` writes it (atomically); false on an error (shown).
    bool exportAb(const QString& path, RunDiffView::ExportFormat format);
    WelcomePage* welcomePage() const { return m_welcome; }
    EventBrowser* eventBrowser() const { return m_events; }
    WindowActions* actions() const { return m_actions; }
    // "folder — Gapscope": the session the window shows.
    QString sessionTitle() const;
    // What the session is called: its saved file's name, its folder's, or the demo's.
    QString sessionName() const;
    // The method compared when it is not "forward" (the title and file names say it); else empty.
    QString comparedMethod() const;
    // Where an export is offered by default: the session's folder, named after
    // the session ("mobilenet" + "-report"); the home folder for a demo.
    QString defaultOutput(const QString& suffix) const;
    // Within the screen's available area, title bar included: a geometry saved
    // on a larger screen is clamped, never taller than the screen.
    void fitToScreen();
    // The window took the size and position it had when last closed.
    bool restoredGeometry() const { return m_restoredGeometry; }
    // A device run rewrote an input while the app shows it: say so and offer a
    // reload (checked when a load completes and when the window is activated).
    void warnIfInputsChanged();

signals:
    // Every stage of a load is done (or it ended without a comparison).
    void sessionShown();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void changeEvent(QEvent* event) override; // on activation: did an input change?

private:
    void showSession(std::shared_ptr<const Session> session, const QStringList& pathErrors);
    void finishSession();
    void showBanner(const QStringList& lines);
    // The status line of a complete session, judged by the threshold shown.
    void showStatus();

    SessionController* m_sessions;
    SessionModel* m_model;
    CompareController* m_compare;
    StepsController* m_steps;
    StepsController* m_stepsB;
    LadderController* m_ladder;
    AbStepsWiring* m_wiring = nullptr;
    InspectorView* m_inspector;
    SessionBanner* m_banner;
    CaptureOffer* m_captureOffer = nullptr;
    DebugBufferPicker* m_debugBufferPicker;
    LoadStatus* m_load = nullptr; // the status bar: progress, Cancel, the session's state
    QStackedWidget* m_pages;
    WelcomePage* m_welcome;
    EventBrowser* m_events;
    WindowActions* m_actions = nullptr;
    bool m_restoredGeometry = false;
    DropChooser m_dropChooser;
};

} // namespace gapscope
