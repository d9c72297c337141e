#include "app/gui/main_window.h"

#include "app/gui/ab_steps_wiring.h"
#include "app/gui/app_settings.h"
#include "app/gui/capture_offer.h"
#include "app/gui/compare_controller.h"
#include "app/gui/debug_buffer_picker.h"
#include "app/gui/inspector_view.h"
#include "app/gui/ladder_controller.h"
#include "app/gui/load_status.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_banner.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_loader.h"
#include "app/gui/session_model.h"
#include "app/gui/session_naming.h"
#include "app/gui/session_status.h"
#include "app/gui/steps_controller.h"
#include "app/gui/welcome_page.h"
#include "app/gui/window_actions.h"
#include "app/gui/window_exports.h"
#include "widgets/event_browser.h"
#include "widgets/fix_view.h"
#include "widgets/graph_view.h"
#include "widgets/op_table_model.h"
#include "widgets/run_diff_model.h"
#include "widgets/run_diff_view.h"
#include "widgets/stage_ladder_view.h"
#include "widgets/step_matrix_view.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace gapscope {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_sessions(new SessionController(this)), m_model(m_sessions->model()),
      m_compare(new CompareController(this)), m_steps(new StepsController(m_sessions->loader(), this)),
      m_stepsB(new StepsController(m_compare->loaderB(), this)),
      m_ladder(new LadderController(m_sessions->loader(), this)), m_inspector(new InspectorView(m_model)),
      m_banner(new SessionBanner), m_debugBufferPicker(new DebugBufferPicker), m_pages(new QStackedWidget),
      m_welcome(new WelcomePage), m_events(new EventBrowser) {
    setWindowTitle(tr("Gapscope"));
    setAcceptDrops(true);

    connect(m_welcome, &WelcomePage::openRequested, this, [this] {
        const auto files = QFileDialog::getOpenFileNames(this, tr("Open session files"));
        if (!files.isEmpty())
            openPaths(files);
    });
    connect(m_welcome, &WelcomePage::openFolderRequested, this, [this] {
        const auto dir = QFileDialog::getExistingDirectory(this, tr("Open a session's folder"));
        if (!dir.isEmpty())
            openPaths({dir});
    });
    connect(m_welcome, &WelcomePage::demoRequested, this,
            [this](EmbeddedDemo demo) { demo == EmbeddedDemo::Qnn ? openQnnDemo() : openDemo(); });
    connect(m_welcome, &WelcomePage::recentRequested, this, &MainWindow::openAnew);
    m_dropChooser = [this](const QStringList& paths, bool canAdd) {
        return askDropAction(this, paths, canAdd);
    };

    auto* central = new QWidget;
    auto* cl = new QVBoxLayout(central);
    cl->addWidget(m_banner);
    m_captureOffer = new CaptureOffer;
    cl->addWidget(m_captureOffer);
    connect(m_captureOffer, &CaptureOffer::made, m_sessions, &SessionController::useNewCapture);
    cl->addWidget(m_debugBufferPicker);
    connect(m_debugBufferPicker, &DebugBufferPicker::picked, m_sessions,
            &SessionController::chooseDebugBuffer);
    cl->addWidget(m_pages, 1);
    m_pages->addWidget(m_welcome);
    m_pages->addWidget(m_inspector);
    m_pages->addWidget(m_events);
    setCentralWidget(central);

    m_load = new LoadStatus(statusBar(), m_sessions->loader(), this);
    connect(m_load, &LoadStatus::rowRequested, this,
            [this](std::size_t row) { m_inspector->selectRow(row); });

    m_actions = new WindowActions(*this);

    // The session model tells each view what changed; the inspector subscribed first.
    connect(m_model, &SessionModel::opened, this, &MainWindow::showSession);
    connect(m_model, &SessionModel::completed, this, &MainWindow::finishSession);
    connect(m_load, &LoadStatus::cancelRequested, this, [this] {
        m_sessions->cancel();
        m_load->loadEnded();
        const bool partial = session() && !session()->complete;
        if (partial)
            m_model->stopMeasuring();
        m_load->setText(
            partial ? tr("Cancelled: ops shown with … have no metrics; File → Reload (F5) computes them")
                    : tr("Loading cancelled"));
        m_actions->refresh();
    });
    // A/B: B loads beside A on its own loader; each complete A is paired with it again.
    connect(m_model, &SessionModel::completed, m_compare, &CompareController::setA);
    connect(m_model, &SessionModel::completed, m_steps, &StepsController::sessionCompleted);
    connect(m_model, &SessionModel::completed, m_ladder, &LadderController::sessionCompleted);
    connect(m_ladder, &LadderController::ready, m_inspector,
            [this](std::shared_ptr<const StageLadder> ladder) { m_inspector->setLadder(std::move(ladder)); });
    connect(m_ladder, &LadderController::none, m_inspector,
            [this](const QString& why) { m_inspector->setLadder(nullptr, why); });
    connect(m_ladder, &LadderController::fixFound, m_inspector,
            [this](std::shared_ptr<const FixReport> fix, const QString& error) {
                m_inspector->ladderView()->fixView()->setReport(std::move(fix), error);
            });
    // The verified run of a fix, beside this session in the A/B tab.
    connect(m_inspector->ladderView()->fixView(), &FixView::fixedSessionRequested, this,
            &MainWindow::compareWithFixedRun);
    m_wiring = new AbStepsWiring(m_inspector, m_model, m_sessions, m_compare, m_steps, m_stepsB,
                                 m_load->line(), this);
    connect(m_inspector, &InspectorView::compareRequested, m_sessions, &SessionController::compare);
    connect(m_model, &SessionModel::rejudged, this, &MainWindow::showStatus); // ⚑ or "no op crosses"
    connect(m_inspector, &InspectorView::captureRequested, m_sessions, &SessionController::chooseCapture);
    connect(m_sessions, &SessionController::recentChanged, this, [this] { m_actions->fillRecent(); });
    connect(m_sessions, &SessionController::sessionReplaced, m_inspector, &InspectorView::clearViewState);
    // A saved session brings its B back (issue 56: it was forgotten).
    connect(m_sessions, &SessionController::compareWithRestored, this, &MainWindow::compareWith);
    connect(m_inspector->runDiffView(), &RunDiffView::swapRequested, this, &MainWindow::swapRuns);
    connect(m_inspector->runDiffView(), &RunDiffView::exportRequested, this,
            [this](RunDiffView::ExportFormat format) {
                static const char* kSuffix[] = {"-ab.csv", "-ab.json", "-ab.md"};
                static const char* kFilter[] = {"CSV (*.csv)", "JSON (*.json)", "Markdown (*.md)"};
                const auto k = static_cast<std::size_t>(format);
                const QString path = QFileDialog::getSaveFileName(
                    this, tr("Export A/B"), defaultOutput(QString::fromLatin1(kSuffix[k])), tr(kFilter[k]));
                if (!path.isEmpty())
                    exportAb(path, format);
            });

    AppSettings settings;
    m_restoredGeometry = restoreGeometry(settings.windowGeometry());
    if (m_restoredGeometry)
        fitToScreen(); // saved on a larger screen, or with a frame the window manager now adds
    restoreState(settings.windowState());
    m_inspector->restoreLayout(settings);
}

MainWindow::~MainWindow() {
    AppSettings settings;
    settings.setWindowGeometry(saveGeometry());
    settings.setWindowState(saveState());
    m_inspector->saveLayout(settings);
}

std::shared_ptr<const Session> MainWindow::session() const {
    return m_model->snapshot();
}

QLabel* MainWindow::banner() const {
    return m_banner;
}

QLabel* MainWindow::statusLine() const {
    return m_load->line();
}

QLabel* MainWindow::worstOpLink() const {
    return m_load->worstLink();
}

QPushButton* MainWindow::cancelButton() const {
    return m_load->cancelButton();
}

SessionLoader* MainWindow::loader() const {
    return m_sessions->loader();
}

QString MainWindow::openPaths(const QStringList& paths) {
    const QString error = m_sessions->openPaths(paths);
    if (!error.isEmpty())
        showBanner({error});
    return error;
}

bool MainWindow::opensAnotherSession(const QStringList& paths) const {
    const bool open = m_sessions->isDemo() || !m_sessions->paths().isEmpty();
    return open && startsSession(paths);
}

void MainWindow::openOrAsk(const QStringList& paths) {
    if (!opensAnotherSession(paths)) {
        openPaths(paths);
        return;
    }
    switch (m_dropChooser(paths, !m_sessions->isDemo())) {
    case DropAction::Open: return openAnew(paths);
    case DropAction::Beside: return compareWith(paths);
    case DropAction::AddFiles: openPaths(paths); return;
    case DropAction::Cancel: return;
    }
}

void MainWindow::openAnew(const QStringList& paths) {
    const QString error = m_sessions->openPaths(paths, true);
    if (!error.isEmpty())
        showBanner({error});
}

void MainWindow::reload() {
    m_sessions->keepView(m_inspector->viewState());
    m_sessions->reload();
}

void MainWindow::openDemo() {
    m_sessions->openDemo(EmbeddedDemo::Xnnpack);
}

void MainWindow::openQnnDemo() {
    m_sessions->openDemo(EmbeddedDemo::Qnn);
}

bool MainWindow::openSessionFile(const QString& path) {
    const QString error = m_sessions->openSessionFile(path);
    if (!error.isEmpty())
        showBanner({error});
    return error.isEmpty();
}

bool MainWindow::saveSession(const QString& path) {
    SessionFile view = m_inspector->viewState();
    view.compareWith = m_compare->pathsB(); // B is part of what the user looks at
    const QString error = m_sessions->saveSession(path, view);
    setWindowTitle(sessionTitle());
    statusBar()->showMessage(
        error.isEmpty() ? tr("Session saved to %1").arg(m_sessions->sessionFile()) : error, 5000);
    return error.isEmpty();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const auto& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    if (!opensAnotherSession(paths)) {
        openPaths(paths); // a saved session file too, told by its content
        return;
    }
    // Asked after the drop is accepted: the drag source is not left waiting on a dialog.
    QTimer::singleShot(0, this, [this, paths] { openOrAsk(paths); });
}

void MainWindow::changeEvent(QEvent* event) {
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::ActivationChange && isActiveWindow())
        warnIfInputsChanged(); // back from the terminal where a device run rewrote the files
}

void MainWindow::warnIfInputsChanged() {
    const auto snapshot = session();
    const QStringList lines = snapshot ? SessionBanner::changedLines(*snapshot) : QStringList();
    const QString text = lines.join(QLatin1Char('\n'));
    if (!lines.isEmpty() && m_banner->text() != text && m_banner->toolTip() != text)
        showBanner(lines);
}

void MainWindow::showBanner(const QStringList& lines) {
    m_banner->showLines(lines);
}

void MainWindow::showSession(std::shared_ptr<const Session> snapshot, const QStringList& pathErrors) {
    QStringList candidates;
    for (const auto& c : snapshot->debug_buffer_candidates)
        candidates << QString::fromStdString(c);
    m_debugBufferPicker->setCandidates(candidates);
    showBanner(SessionBanner::linesFor(*snapshot, pathErrors));
    m_captureOffer->setSession(snapshot.get());
    // The comparison; else what the ETDump holds; else the welcome page.
    m_events->setSession(snapshot->comparison ? nullptr : snapshot);
    m_pages->setCurrentWidget(snapshot->comparison ? static_cast<QWidget*>(m_inspector)
                              : snapshot->dump     ? static_cast<QWidget*>(m_events)
                                                   : static_cast<QWidget*>(m_welcome));
    setWindowTitle(sessionTitle());
    m_actions->refresh();
    if (snapshot->comparison && !snapshot->complete)
        m_load->setText(tr("%1 aligned; computing their metrics…")
                            .arg(countOf(snapshot->comparison->rows.size(), tr("op"), tr("ops"))));
}

void MainWindow::finishSession() {
    m_load->loadEnded();
    m_wiring->sessionFinished();
    if (const auto view = m_sessions->takeSavedView()) // a saved session's, or Reload's
        m_inspector->restoreViewState(*view);
    m_actions->refresh();
    showStatus();
    warnIfInputsChanged();
    emit sessionShown();
}

void MainWindow::showStatus() {
    const auto snapshot = session();
    if (snapshot && !snapshot->complete)
        return; // "computing their metrics…" stays until the load completes
    m_load->showSession(snapshot.get(), m_inspector->opModel()->topIntroducer());
}

void MainWindow::fitToScreen() {
    const QRect available = screen()->availableGeometry();
    // Room for the title bar the window manager adds above the client area.
    const int frame = std::max(frameGeometry().height() - geometry().height(), 32);
    QRect g = geometry();
    g.setWidth(std::min(g.width(), available.width()));
    g.setHeight(std::min(g.height(), available.height() - frame));
    g.moveLeft(std::clamp(g.left(), available.left(), available.right() - g.width() + 1));
    g.moveTop(std::clamp(g.top(), available.top() + frame, available.bottom() - g.height() + 1));
    if (g != geometry())
        setGeometry(g);
}

QString MainWindow::comparedMethod() const {
    return SessionNaming{*m_sessions, session().get()}.comparedMethod();
}

QString MainWindow::sessionName() const {
    return SessionNaming{*m_sessions, session().get()}.name();
}

QString MainWindow::defaultOutput(const QString& suffix) const {
    return SessionNaming{*m_sessions, session().get()}.defaultOutput(suffix);
}

QString MainWindow::sessionTitle() const {
    return SessionNaming{*m_sessions, session().get()}.title();
}

bool MainWindow::swapRuns() {
    if (!m_compare->hasB() || m_sessions->isDemo() || m_sessions->paths().isEmpty())
        return false;
    const QStringList a = m_sessions->paths(), b = m_compare->pathsB();
    openAnew(b); // closes B with the session it was beside
    compareWith(a);
    return true;
}

bool MainWindow::exportAb(const QString& path, RunDiffView::ExportFormat format) {
    const auto runs = m_compare->runs();
    const QString error =
        writeAbExport(runs.get(), m_inspector->runDiffView()->model()->metric(), path, format);
    statusBar()->showMessage(error.isEmpty() ? tr("A/B exported to %1").arg(path) : error, 8000);
    if (!error.isEmpty())
        showBanner({error});
    return error.isEmpty();
}

bool MainWindow::exportCsv(const QString& path) {
    return writeOpsCsv(session().get(), path);
}

void MainWindow::compareWith(const QStringList& paths) {
    m_inspector->stepsView()->setStepsB(nullptr);
    m_inspector->runDiffView()->setMessage(tr("Loading B: %1…").arg(paths.join(QStringLiteral(", "))));
    m_inspector->showTab(InspectorView::AbTab);
    m_compare->openB(paths, loader()->workspace()); // B beside A, in A's workspace
    if (session())
        m_compare->setA(session());
}

void MainWindow::compareWithFixedRun(const QString& folder) {
    // Both against the float model: the fix is judged on the loss to it. A's
    // float capture is the ladder's first stage when it is the float model.
    const StageLadder* ladder = m_inspector->opModel()->ladder();
    if (ladder && !ladder->stages.empty() && ladder->stages.front() == LadderStage::FloatModel && session() &&
        session()->capture_file && session()->capture_file->path() != ladder->capture_paths.front())
        m_sessions->chooseCapture(QString::fromStdString(ladder->capture_paths.front()));
    // B: the verified run with its float reference (gapscope-capture fix writes both).
    const QDir dir(folder);
    compareWith({dir.filePath(QStringLiteral("run.etdp")), dir.filePath(QStringLiteral("run.debug.bin")),
                 dir.filePath(QStringLiteral("etrecord.bin")),
                 dir.filePath(QStringLiteral("capture_float.gscap.safetensors"))});
}

void MainWindow::screenshotWhenLoaded(const QString& path, std::function<void(bool)> done) {
    screenshotWhenSettled(*this, path, std::move(done));
}

} // namespace gapscope
