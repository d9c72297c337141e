#include "app/gui/main_window.h"

#include "app/gui/ab_steps_wiring.h"
#include "app/gui/app_settings.h"
#include "app/gui/compare_controller.h"
#include "app/gui/debug_buffer_picker.h"
#include "app/gui/inspector_view.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_loader.h"
#include "app/gui/session_status.h"
#include "app/gui/steps_controller.h"
#include "app/gui/welcome_page.h"
#include "app/gui/window_actions.h"
#include "core/common/atomic_file.h"
#include "core/report/compare_report.h"
#include "core/report/diff_report.h"
#include "core/report/json_stream.h"
#include "widgets/event_browser.h"
#include "widgets/gap_chart.h"
#include "widgets/graph_view.h"
#include "widgets/op_table_model.h"
#include "widgets/pair_tensor_view.h"
#include "widgets/plot_export.h"
#include "widgets/run_diff_model.h"
#include "widgets/run_diff_view.h"
#include "widgets/step_matrix_view.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <sstream>

namespace gapscope {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_sessions(new SessionController(this)), m_compare(new CompareController(this)),
      m_steps(new StepsController(this)), m_stepsB(new StepsController(this)), m_inspector(new InspectorView),
      m_banner(new QLabel), m_debugBufferPicker(new DebugBufferPicker), m_progress(new QProgressBar),
      m_cancel(new QPushButton(tr("Cancel"))), m_status(new QLabel), m_worstLink(new QLabel),
      m_pages(new QStackedWidget), m_welcome(new WelcomePage), m_events(new EventBrowser) {
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
    m_banner->setWordWrap(true);
    // File names and messages from inputs: never read as rich text.
    m_banner->setTextFormat(Qt::PlainText);
    m_banner->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; border: 1px solid #e0c36a; padding: 6px; }"));
    m_banner->hide();
    cl->addWidget(m_banner);
    cl->addWidget(m_debugBufferPicker);
    connect(m_debugBufferPicker, &DebugBufferPicker::picked, m_sessions,
            &SessionController::chooseDebugBuffer);
    cl->addWidget(m_pages, 1);
    m_pages->addWidget(m_welcome);
    m_pages->addWidget(m_inspector);
    m_pages->addWidget(m_events);
    setCentralWidget(central);

    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_cancel->hide();
    m_status->setObjectName(QStringLiteral("sessionStatus"));
    // A long message is cut, as showMessage's was; it never widens the window.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    statusBar()->addWidget(m_status, 1);
    m_worstLink->setObjectName(QStringLiteral("worstOpLink"));
    m_worstLink->setTextFormat(Qt::RichText);
    m_worstLink->setToolTip(tr("No op crosses the threshold: select the op that comes closest"));
    m_worstLink->hide();
    connect(m_worstLink, &QLabel::linkActivated, this,
            [this](const QString& row) { m_inspector->selectRow(row.toULongLong()); });
    statusBar()->addWidget(m_worstLink);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);

    m_actions = new WindowActions(*this);

    SessionLoader* loader = m_sessions->loader();
    connect(loader, &SessionLoader::started, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
        m_cancel->show();
        m_status->setText(tr("Loading…"));
    });
    connect(loader, &SessionLoader::progress, this,
            [this](const QString& stage, quint64 done, quint64 total) {
                // QProgressBar::setValue repaints at once (repaint(), not update()),
                // which paints every dirty widget of the window inside this slot, the
                // table a snapshot has just changed too. With updates off, the bar is
                // painted with the rest when the event loop gets to it.
                m_progress->setUpdatesEnabled(false);
                m_progress->setRange(0, 1000);
                m_progress->setValue(total ? static_cast<int>(done * 1000 / total) : 0);
                m_progress->setFormat(stage + QStringLiteral(" %p%"));
                m_progress->setTextVisible(true);
                m_progress->setUpdatesEnabled(true); // an update(): painted later
            });
    connect(loader, &SessionLoader::opened, this, &MainWindow::showSession);
    connect(loader, &SessionLoader::measured, m_inspector, &InspectorView::updateSession);
    connect(loader, &SessionLoader::completed, this, &MainWindow::finishSession);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_sessions->cancel();
        m_progress->hide();
        m_cancel->hide();
        const bool partial = session() && !session()->complete;
        if (partial)
            m_inspector->measuringStopped();
        m_status->setText(
            partial ? tr("Cancelled: ops shown with … have no metrics; File → Reload (F5) computes them")
                    : tr("Loading cancelled"));
        m_actions->refresh();
    });
    // A/B: B loads beside A on its own loader; each complete A is paired with it again.
    connect(loader, &SessionLoader::completed, m_compare, &CompareController::setA);
    connect(loader, &SessionLoader::completed, m_steps, &StepsController::sessionCompleted);
    m_wiring = new AbStepsWiring(m_inspector, m_sessions, m_compare, m_steps, m_stepsB, m_status, this);
    connect(m_inspector, &InspectorView::compareRequested, m_sessions, &SessionController::compare);
    connect(m_inspector, &InspectorView::thresholdChanged, m_sessions, &SessionController::setThreshold);
    connect(m_inspector, &InspectorView::thresholdChanged, this,
            &MainWindow::showStatus); // ⚑ or "no op crosses"
    connect(m_inspector, &InspectorView::captureRequested, m_sessions, &SessionController::chooseCapture);
    connect(m_sessions, &SessionController::recentChanged, this, [this] { m_actions->fillRecent(); });
    connect(m_sessions, &SessionController::sessionReplaced, m_inspector, &InspectorView::clearViewState);
    connect(m_sessions, &SessionController::thresholdRestored, m_inspector, &InspectorView::setThreshold);
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

OpTableModel* MainWindow::opModel() const {
    return m_inspector->opModel();
}
OpFilterProxy* MainWindow::opProxy() const {
    return m_inspector->opProxy();
}
QTableView* MainWindow::opView() const {
    return m_inspector->opView();
}
GapChart* MainWindow::chart() const {
    return m_inspector->chart();
}
TensorPanel* MainWindow::tensorPanel() const {
    return m_inspector->tensorPanel();
}
QComboBox* MainWindow::runSelector() const {
    return m_inspector->runSelector();
}
std::shared_ptr<const Session> MainWindow::session() const {
    return m_inspector->session();
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
    const auto snapshot = m_inspector->session();
    if (!snapshot)
        return;
    QStringList lines;
    for (const auto& path : changedInputs(*snapshot))
        lines << tr("%1 changed on disk since it was opened: what is shown may no longer match it; press F5 "
                    "to reload")
                     .arg(QString::fromStdString(path));
    if (!lines.isEmpty() && m_banner->text() != lines.join(QLatin1Char('\n')) &&
        m_banner->toolTip() != lines.join(QLatin1Char('\n')))
        showBanner(lines);
}

void MainWindow::showBanner(const QStringList& lines) {
    // Three lines at most above the table (issue 56: a 6-run BERT showed 8); all
    // of them in the tooltip.
    constexpr int kShown = 3;
    QStringList shown = lines.mid(0, kShown);
    if (lines.size() > kShown)
        shown << tr("… and %n more (hover here for all)", "", static_cast<int>(lines.size() - kShown));
    m_banner->setText(shown.join(QLatin1Char('\n')));
    m_banner->setToolTip(lines.size() > kShown ? lines.join(QLatin1Char('\n')) : QString());
    m_banner->setVisible(!lines.isEmpty());
}

void MainWindow::showSession(std::shared_ptr<const Session> snapshot, const QStringList& pathErrors) {
    // Another A: the A/B difference shown on the graph is of the previous one until paired again.
    m_inspector->graphView()->setDifference({}, {});
    m_inspector->showSession(snapshot);
    QStringList lines = pathErrors;
    for (const auto& e : snapshot->errors) // the unreadable files are among them too: once each
        if (const QString text = QString::fromStdString(e.describe()); !lines.contains(text))
            lines << text;
    for (const auto& m : snapshot->missing)
        lines << (m == InputRole::DebugBuffer && !snapshot->debug_buffer_candidates.empty()
                      ? tr("debug buffer missing: %n files could be it; pick one below, or drop it here", "",
                           static_cast<int>(snapshot->debug_buffer_candidates.size()))
                      : tr("%1 missing: drop it here").arg(QString::fromLatin1(inputRoleLabel(m))));
    QStringList candidates;
    for (const auto& c : snapshot->debug_buffer_candidates)
        candidates << QString::fromStdString(c);
    m_debugBufferPicker->setCandidates(candidates);
    showBanner(lines);
    // The comparison; else what the ETDump holds; else the welcome page.
    m_events->setSession(snapshot->comparison ? nullptr : snapshot);
    m_pages->setCurrentWidget(snapshot->comparison ? static_cast<QWidget*>(m_inspector)
                              : snapshot->dump     ? static_cast<QWidget*>(m_events)
                                                   : static_cast<QWidget*>(m_welcome));
    setWindowTitle(sessionTitle());
    m_actions->refresh();
    if (snapshot->comparison && !snapshot->complete)
        m_status->setText(tr("%1 aligned; computing their metrics…")
                              .arg(countOf(snapshot->comparison->rows.size(), tr("op"), tr("ops"))));
}

void MainWindow::finishSession(std::shared_ptr<const Session> snapshot) {
    m_progress->hide();
    m_cancel->hide();
    m_inspector->finishSession(snapshot);
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
    const SessionStatus status = snapshot && snapshot->comparison
                                     ? describeSession(*snapshot, opModel()->topIntroducer())
                                     : SessionStatus{};
    m_status->setText(status.text);
    // Op names come from the inputs: escaped, the link alone is markup.
    m_worstLink->setText(
        status.worst
            ? QStringLiteral("<a href=\"%1\">%2</a>").arg(*status.worst).arg(status.worstLink.toHtmlEscaped())
            : QString());
    m_worstLink->setVisible(status.worst.has_value());
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
    const auto s = session();
    return s && s->comparison && s->comparison->method != "forward"
               ? QString::fromStdString(s->comparison->method)
               : QString();
}

QString MainWindow::sessionName() const {
    if (m_sessions->isDemo())
        return m_sessions->demoKind() == EmbeddedDemo::Qnn ? tr("QNN 8a8w demo") : tr("XNNPACK int8 demo");
    if (!m_sessions->sessionFile().isEmpty()) {
        QString name = QFileInfo(m_sessions->sessionFile()).fileName();
        if (name.endsWith(QStringLiteral(".gapscope.json")))
            name.chop(14);
        return name;
    }
    if (m_sessions->paths().isEmpty())
        return {};
    const QFileInfo first(m_sessions->paths().front());
    return first.isDir() ? first.fileName() : QFileInfo(first.absolutePath()).fileName();
}

QString MainWindow::defaultOutput(const QString& suffix) const {
    QString folder = QDir::homePath();
    if (!m_sessions->sessionFile().isEmpty())
        folder = QFileInfo(m_sessions->sessionFile()).absolutePath();
    else if (!m_sessions->isDemo() && !m_sessions->paths().isEmpty()) {
        const QFileInfo first(m_sessions->paths().front());
        folder = first.isDir() ? first.absoluteFilePath() : first.absolutePath();
    }
    QString name = sessionName().isEmpty() ? QStringLiteral("gapscope") : sessionName();
    name.replace(QLatin1Char(' '), QLatin1Char('-'));
    if (const QString method = comparedMethod(); !method.isEmpty())
        name += QLatin1Char('-') + method;
    return QDir(folder).filePath(name + suffix);
}

QString MainWindow::sessionTitle() const {
    QString name = sessionName();
    // A folder's last name alone is often "portable" or "int8": its parent says
    // of what (issue 56). "vit/portable — Gapscope".
    if (!m_sessions->isDemo() && m_sessions->sessionFile().isEmpty() && !m_sessions->paths().isEmpty()) {
        const QFileInfo first(m_sessions->paths().front());
        const QDir folder(first.isDir() ? first.absoluteFilePath() : first.absolutePath());
        const QString parent = QFileInfo(folder.absolutePath()).dir().dirName();
        if (!parent.isEmpty() && parent != QStringLiteral("."))
            name = parent + QLatin1Char('/') + name;
    }
    if (const QString method = comparedMethod(); !method.isEmpty())
        name += QStringLiteral(" · ") + method;
    return name.isEmpty() ? tr("Gapscope") : tr("%1 — Gapscope").arg(name);
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
    QString error;
    if (!runs) {
        error = tr("Nothing to export: no A/B comparison is shown");
    } else {
        static constexpr DiffFormat kAs[] = {DiffFormat::Csv, DiffFormat::Json, DiffFormat::Markdown};
        const std::string text = diffText(diffRuns(*runs, m_inspector->runDiffView()->model()->metric()),
                                          kAs[static_cast<int>(format)]);
        if (auto err = writeFileAtomically(path.toStdString(), std::string_view(text)))
            error = QString::fromStdString(err->describe());
    }
    statusBar()->showMessage(error.isEmpty() ? tr("A/B exported to %1").arg(path) : error, 8000);
    if (!error.isEmpty())
        showBanner({error});
    return error.isEmpty();
}

bool MainWindow::exportCsv(const QString& path) {
    const auto snapshot = session();
    if (!snapshot || !snapshot->comparison || !snapshot->complete)
        return false;
    std::ostringstream out;
    writeComparisonCsv(out, *snapshot->comparison, snapshot->latency.get());
    return !writeFileAtomically(path.toStdString(), std::string_view(out.str()));
}

void MainWindow::compareWith(const QStringList& paths) {
    m_inspector->stepsView()->setStepsB(nullptr);
    m_inspector->runDiffView()->setMessage(tr("Loading B: %1…").arg(paths.join(QStringLiteral(", "))));
    m_inspector->showTab(InspectorView::AbTab);
    m_compare->openB(paths);
    if (session())
        m_compare->setA(session());
}

void MainWindow::screenshotWhenLoaded(const QString& path, std::function<void(bool)> done) {
    // B failed: nothing more will settle, and A's page is shot as it is.
    if (m_compare->busy() ||
        (m_compare->hasB() && loader()->busy() && !m_compare->runs() && !m_compare->failedB())) {
        // A/B: both sessions, and their pairing, first.
        connect(
            m_compare, &CompareController::settled, this,
            [this, path, done] { screenshotWhenLoaded(path, done); }, Qt::SingleShotConnection);
        return;
    }
    auto shoot = [this, path, done] {
        // Let layouts and plots settle (the graph's layout too) before grabbing.
        auto grabNow = [this, path, done] {
            QTimer::singleShot(200, this,
                               [this, path, done] { done(savePng(grab().toImage(), path).isEmpty()); });
        };
        if (m_inspector->graphView()->layoutPending())
            connect(m_inspector->graphView(), &GraphView::laidOut, this, grabNow, Qt::SingleShotConnection);
        else if (StepsController* busy = m_steps->busy() ? m_steps : m_stepsB->busy() ? m_stepsB : nullptr)
            connect(
                busy, &StepsController::ready, this, [this, path, done] { screenshotWhenLoaded(path, done); },
                Qt::SingleShotConnection); // the steps being compared, then look again
        else
            grabNow();
    };
    if (loader()->busy())
        connect(this, &MainWindow::sessionShown, this, shoot, Qt::SingleShotConnection);
    else
        shoot();
}

} // namespace gapscope
