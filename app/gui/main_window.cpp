#include "app/gui/main_window.h"

#include "app/gui/app_settings.h"
#include "app/gui/inspector_view.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_loader.h"
#include "core/common/atomic_file.h"
#include "core/report/compare_report.h"
#include "widgets/gap_chart.h"
#include "widgets/op_table_model.h"
#include "widgets/plot_export.h"

#include <QAction>
#include <QApplication>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>
#include <sstream>

namespace gapscope {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_sessions(new SessionController(this)), m_inspector(new InspectorView),
      m_banner(new QLabel), m_progress(new QProgressBar), m_cancel(new QPushButton(tr("Cancel"))),
      m_pages(new QStackedWidget) {
    setWindowTitle(tr("Gapscope"));
    setAcceptDrops(true);

    // Welcome page: what to drop, and the demo.
    auto* welcome = new QWidget;
    auto* wl = new QVBoxLayout(welcome);
    auto* hello = new QLabel(tr("<h2>Gapscope</h2><p>Drop the files a device run produced here: the ETDump "
                                "(<tt>.etdp</tt>), its debug buffer, the ETRecord and the AOT capture — or a "
                                "folder holding them.</p>"));
    hello->setAlignment(Qt::AlignCenter);
    // Two real sessions to try: XNNPACK int8 and Qualcomm QNN 8a8w.
    auto* demo = new QPushButton(tr("Open the XNNPACK int8 demo"));
    demo->setToolTip(tr("A small conv/layer_norm/linear/topk model quantised to int8 and lowered to XNNPACK, "
                        "compared with the float model"));
    connect(demo, &QPushButton::clicked, this, &MainWindow::openDemo);
    auto* qnnDemo = new QPushButton(tr("Open the QNN 8a8w demo"));
    qnnDemo->setToolTip(tr("A conv stem and an attention block quantised 8a8w for Qualcomm's HTP: raw uint8, "
                           "channels-last device tensors, dequantised and re-laid out"));
    connect(qnnDemo, &QPushButton::clicked, this, &MainWindow::openQnnDemo);
    auto* demos = new QHBoxLayout;
    demos->addStretch();
    demos->addWidget(demo);
    demos->addWidget(qnnDemo);
    demos->addStretch();
    wl->addStretch();
    wl->addWidget(hello);
    wl->addLayout(demos);
    wl->addStretch();

    auto* central = new QWidget;
    auto* cl = new QVBoxLayout(central);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; border: 1px solid #e0c36a; padding: 6px; }"));
    m_banner->hide();
    cl->addWidget(m_banner);
    cl->addWidget(m_pages, 1);
    m_pages->addWidget(welcome);
    m_pages->addWidget(m_inspector);
    setCentralWidget(central);

    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);

    buildMenus();

    SessionLoader* loader = m_sessions->loader();
    connect(loader, &SessionLoader::started, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
        m_cancel->show();
        statusBar()->showMessage(tr("Loading…"));
    });
    connect(loader, &SessionLoader::progress, this,
            [this](const QString& stage, quint64 done, quint64 total) {
                m_progress->setRange(0, 1000);
                m_progress->setValue(total ? static_cast<int>(done * 1000 / total) : 0);
                m_progress->setFormat(stage + QStringLiteral(" %p%"));
                m_progress->setTextVisible(true);
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
        statusBar()->showMessage(
            partial ? tr("Cancelled: ops shown with … have no metrics; reload to compute them")
                    : tr("Loading cancelled"),
            6000);
    });
    connect(m_inspector, &InspectorView::compareRequested, m_sessions, &SessionController::compare);
    connect(m_sessions, &SessionController::recentChanged, this, &MainWindow::fillRecent);

    AppSettings settings;
    restoreGeometry(settings.windowGeometry());
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

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), this,
                    [this] {
                        const auto files = QFileDialog::getOpenFileNames(this, tr("Open session files"));
                        if (!files.isEmpty())
                            openPaths(files);
                    })
        ->setShortcut(QKeySequence::Open);
    file->addAction(tr("&Export table as CSV…"), this,
                    [this] {
                        const auto path = QFileDialog::getSaveFileName(this, tr("Export CSV"),
                                                                       QStringLiteral("gapscope.csv"));
                        if (path.isEmpty())
                            return;
                        if (session() && !session()->complete)
                            statusBar()->showMessage(
                                tr("The metrics are still being computed: export once they are"), 5000);
                        else if (!exportCsv(path))
                            statusBar()->showMessage(tr("Could not write %1").arg(path), 5000);
                    })
        ->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addAction(tr("Export gap chart as &PNG, PDF or SVG…"), this, [this] {
        const auto path =
            QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("gap-chart.png"),
                                         tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
        if (path.isEmpty())
            return;
        const QString err = savePlot(chart()->plot(), path);
        statusBar()->showMessage(err.isEmpty() ? tr("Chart written to %1").arg(path) : err, 5000);
    });
    file->addAction(tr("Open &session file…"), this, [this] {
        const auto path = QFileDialog::getOpenFileName(this, tr("Open session"), QString(),
                                                       tr("Gapscope session (*.json)"));
        if (!path.isEmpty())
            openSessionFile(path);
    });
    file->addAction(tr("Sa&ve session…"), this,
                    [this] {
                        const auto path = QFileDialog::getSaveFileName(
                            this, tr("Save session"), QStringLiteral("session.gapscope.json"));
                        if (!path.isEmpty())
                            saveSession(path);
                    })
        ->setShortcut(QKeySequence::Save);
    m_recent = file->addMenu(tr("&Recent sessions"));
    fillRecent();
    file->addSeparator();
    file->addAction(
            tr("Export &report…"), this,
            [this] {
                const auto folder = QFileDialog::getExistingDirectory(this, tr("Export report into folder"));
                if (folder.isEmpty())
                    return;
                const QString err = exportReportFolder(session(), chart()->metric(), folder);
                statusBar()->showMessage(err.isEmpty() ? tr("Report written to %1").arg(folder) : err, 6000);
            })
        ->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    file->addSeparator();
    file->addAction(tr("&Quit"), qApp, &QApplication::quit)->setShortcut(QKeySequence::Quit);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Find op"), m_inspector, &InspectorView::focusFilter)
        ->setShortcut(QKeySequence::Find);
    const auto step = [this](int direction) {
        if (!m_inspector->stepDivergent(direction))
            statusBar()->showMessage(tr("No op is past the threshold"), 3000);
    };
    view->addAction(tr("&Next divergent op"), this, [step] { step(+1); })
        ->setShortcut(QKeySequence(Qt::Key_F3));
    view->addAction(tr("&Previous divergent op"), this, [step] { step(-1); })
        ->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
    view->addAction(tr("Op where the &error grows most"), this,
                    [this] {
                        if (!m_inspector->selectStrongestGain())
                            statusBar()->showMessage(
                                tr("No op doubles the error it receives (or the metrics are not in yet)"),
                                3000);
                    })
        ->setShortcut(QKeySequence(tr("Ctrl+I")));

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("Open &demo (XNNPACK int8)"), this, &MainWindow::openDemo);
    help->addAction(tr("Open &QNN demo (Qualcomm HTP 8a8w)"), this, &MainWindow::openQnnDemo);
}

void MainWindow::fillRecent() {
    m_recent->clear();
    const auto recent = AppSettings().recentSessions();
    for (const auto& files : recent) {
        QStringList names;
        for (const auto& f : files)
            names << QFileInfo(f).fileName();
        m_recent->addAction(names.join(QStringLiteral(", ")), this,
                            [this, files] { m_sessions->openFiles(files); });
    }
    m_recent->setEnabled(!recent.isEmpty());
}

void MainWindow::openPaths(const QStringList& paths) {
    m_sessions->openPaths(paths);
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
    const QString error = m_sessions->saveSession(path);
    statusBar()->showMessage(error.isEmpty() ? tr("Session saved to %1").arg(path) : error, 5000);
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
    // A dropped session file opens its session (told by content, not the name).
    if (paths.size() == 1 && readSessionFile(paths.front())) {
        openSessionFile(paths.front());
        return;
    }
    openPaths(paths);
}

void MainWindow::showBanner(const QStringList& lines) {
    m_banner->setText(lines.join(QLatin1Char('\n')));
    m_banner->setVisible(!lines.isEmpty());
}

void MainWindow::showSession(std::shared_ptr<const Session> snapshot, const QStringList& pathErrors) {
    m_inspector->showSession(snapshot);
    QStringList lines = pathErrors;
    for (const auto& e : snapshot->errors)
        lines << QString::fromStdString(e.describe());
    for (const auto& m : snapshot->missing)
        lines << tr("%1 missing: drop it here").arg(QString::fromStdString(m));
    showBanner(lines);
    m_pages->setCurrentIndex(snapshot->comparison ? 1 : 0);
    if (snapshot->comparison && !snapshot->complete)
        statusBar()->showMessage(
            tr("%1 ops aligned; computing their metrics…").arg(snapshot->comparison->rows.size()));
}

void MainWindow::finishSession(std::shared_ptr<const Session> snapshot) {
    m_progress->hide();
    m_cancel->hide();
    m_inspector->finishSession(snapshot);
    if (snapshot->comparison) {
        const auto top = opModel()->topIntroducer();
        statusBar()->showMessage(
            tr("%1 ops compared, %2 coverage items%3%4")
                .arg(snapshot->comparison->rows.size())
                .arg(snapshot->comparison->coverage.size())
                .arg(snapshot->first_divergence
                         ? tr(", first divergence ⚑ at row %1").arg(snapshot->first_divergence->row)
                         : QString())
                .arg(top ? tr(", error grows most ▲ at row %1 (%2)")
                               .arg(*top)
                               .arg(QString::fromStdString(displayOpName(snapshot->comparison->rows[*top])))
                         : QString()));
    } else {
        statusBar()->clearMessage();
    }
    emit sessionShown();
}

bool MainWindow::exportCsv(const QString& path) {
    const auto snapshot = session();
    if (!snapshot || !snapshot->comparison || !snapshot->complete)
        return false;
    std::ostringstream out;
    writeComparisonCsv(out, *snapshot->comparison);
    return !writeFileAtomically(path.toStdString(), std::string_view(out.str()));
}

void MainWindow::screenshotWhenLoaded(const QString& path, std::function<void(bool)> done) {
    auto shoot = [this, path, done] {
        // Let layouts and plots settle before grabbing.
        QTimer::singleShot(200, this,
                           [this, path, done] { done(savePng(grab().toImage(), path).isEmpty()); });
    };
    if (loader()->busy())
        connect(this, &MainWindow::sessionShown, this, shoot, Qt::SingleShotConnection);
    else
        shoot();
}

} // namespace gapscope
