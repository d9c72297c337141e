#include "app/gui/main_window.h"

#include "app/gui/app_settings.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_loader.h"
#include "core/common/atomic_file.h"
#include "core/compare/metric_catalog.h"
#include "core/report/compare_report.h"
#include "widgets/coverage_model.h"
#include "widgets/gap_chart.h"
#include "widgets/op_filter_proxy.h"
#include "widgets/op_table_model.h"
#include "widgets/plot_export.h"
#include "widgets/tensor_panel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>
#include <sstream>

namespace gapscope {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_loader(new SessionLoader(this)), m_model(new OpTableModel(this)),
      m_proxy(new OpFilterProxy(this)), m_coverage(new CoverageModel(this)), m_table(new QTableView),
      m_coverageView(new QTableView), m_chart(new GapChart), m_tensors(new TensorPanel), m_banner(new QLabel),
      m_filter(new QLineEdit), m_aboveThreshold(new QCheckBox(tr("only gaps past the threshold"))),
      m_progress(new QProgressBar), m_cancel(new QPushButton(tr("Cancel"))), m_pages(new QStackedWidget),
      m_runs(new QComboBox), m_chartRefresh(new QTimer(this)) {
    setWindowTitle(tr("Gapscope"));
    setAcceptDrops(true);

    m_proxy->setSourceModel(m_model);
    for (QTableView* view : {m_table, m_coverageView}) {
        view->setSelectionBehavior(QAbstractItemView::SelectRows);
        view->setSelectionMode(QAbstractItemView::SingleSelection);
        view->verticalHeader()->hide();
        view->setAlternatingRowColors(true);
        view->setWordWrap(false);
    }
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(OpTableModel::Index, Qt::AscendingOrder);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_coverageView->setModel(m_coverage);
    m_coverageView->horizontalHeader()->setStretchLastSection(true);

    // Welcome page: what to drop, and the demo.
    auto* welcome = new QWidget;
    auto* wl = new QVBoxLayout(welcome);
    auto* hello = new QLabel(tr("<h2>Gapscope</h2><p>Drop the files a device run produced here: the ETDump "
                                "(<tt>.etdp</tt>), its debug buffer, the ETRecord and the AOT capture — or a "
                                "folder holding them.</p>"));
    hello->setAlignment(Qt::AlignCenter);
    auto* demo = new QPushButton(tr("Open the demo session"));
    connect(demo, &QPushButton::clicked, this, &MainWindow::openDemo);
    wl->addStretch();
    wl->addWidget(hello);
    wl->addWidget(demo, 0, Qt::AlignCenter);
    wl->addStretch();

    auto* filterRow = new QHBoxLayout;
    m_filter->setPlaceholderText(tr("Filter ops, handles, status…"));
    m_filter->setClearButtonEnabled(true);
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_aboveThreshold);
    filterRow->addWidget(new QLabel(tr("Run:")));
    filterRow->addWidget(m_runs);
    m_runs->setToolTip(tr("The RunData block of the ETDump to compare"));
    auto* tableBox = new QWidget;
    auto* tl = new QVBoxLayout(tableBox);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addLayout(filterRow);
    auto* tabs = new QTabWidget;
    tabs->addTab(m_table, tr("Ops"));
    tabs->addTab(m_coverageView, tr("Coverage"));
    tl->addWidget(tabs, 1);

    auto* top = new QSplitter(Qt::Vertical);
    top->setObjectName(QStringLiteral("tableAndTensors"));
    top->addWidget(tableBox);
    top->addWidget(m_tensors);
    auto* main = new QSplitter(Qt::Vertical);
    main->setObjectName(QStringLiteral("viewsAndChart"));
    main->addWidget(top);
    main->addWidget(m_chart);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 2);
    main->setSizes({620, 300});
    top->setSizes({300, 420});
    top->setStretchFactor(0, 1);
    top->setStretchFactor(1, 1);

    auto* central = new QWidget;
    auto* cl = new QVBoxLayout(central);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; border: 1px solid #e0c36a; padding: 6px; }"));
    m_banner->hide();
    cl->addWidget(m_banner);
    cl->addWidget(m_pages, 1);
    m_pages->addWidget(welcome);
    m_pages->addWidget(main);
    setCentralWidget(central);

    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);

    buildMenus();

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &OpFilterProxy::setText);
    connect(m_aboveThreshold, &QCheckBox::toggled, this, [this](bool on) {
        if (!m_session)
            return;
        m_proxy->setThreshold(QString::fromStdString(m_session->threshold.metric),
                              on ? std::optional<double>(m_session->threshold.value) : std::nullopt);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                selectRow(static_cast<std::size_t>(current.data(OpTableModel::RowIndexRole).toULongLong()));
            });
    connect(m_chart, &GapChart::rowClicked, this, [this](std::size_t row) { selectRow(row); });
    connect(m_loader, &SessionLoader::started, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
        m_cancel->show();
        statusBar()->showMessage(tr("Loading…"));
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_loader->cancel();
        m_progress->hide();
        m_cancel->hide();
        m_chartRefresh->stop();
        if (m_session && !m_session->complete)
            m_model->setMeasuringStopped(true);
        statusBar()->showMessage(
            m_session && !m_session->complete
                ? tr("Cancelled: ops shown with \u2026 have no metrics; reload to compute them")
                : tr("Loading cancelled"),
            6000);
    });
    connect(m_loader, &SessionLoader::opened, this, &MainWindow::showSession);
    connect(m_loader, &SessionLoader::rowsMeasured, this, [this](std::size_t first, std::size_t last) {
        m_model->rowsChanged(first, last);
        if (!m_chartRefresh->isActive())
            m_chartRefresh->start();
    });
    connect(m_loader, &SessionLoader::completed, this, &MainWindow::finishSession);
    connect(m_loader, &SessionLoader::progress, this,
            [this](const QString& stage, quint64 done, quint64 total) {
                m_progress->setRange(0, 1000);
                m_progress->setValue(total ? static_cast<int>(done * 1000 / total) : 0);
                m_progress->setFormat(stage + QStringLiteral(" %p%"));
                m_progress->setTextVisible(true);
            });
    // Rows arrive in batches during a staged load: redraw the chart at most a few times a second.
    m_chartRefresh->setSingleShot(true);
    m_chartRefresh->setInterval(150);
    connect(m_chartRefresh, &QTimer::timeout, m_chart, &GapChart::refresh);
    connect(m_runs, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const auto run = m_runs->itemData(index).toULongLong();
        if (m_session && m_session->comparison && m_session->comparison->run == run)
            return;
        m_options.comparison.run = static_cast<std::size_t>(run);
        reload();
    });

    AppSettings settings;
    restoreGeometry(settings.windowGeometry());
    restoreState(settings.windowState());
    for (auto* splitter : findChildren<QSplitter*>())
        if (const auto state = settings.splitterState(splitter->objectName()); !state.isEmpty())
            splitter->restoreState(state);
    if (const auto header = settings.tableHeaderState(); !header.isEmpty())
        m_savedHeader = header;
    connect(m_chart->findChild<QComboBox*>(), &QComboBox::currentTextChanged, this,
            [](const QString& metric) { AppSettings().setChartMetric(metric); });
}

MainWindow::~MainWindow() {
    AppSettings settings;
    settings.setWindowGeometry(saveGeometry());
    settings.setWindowState(saveState());
    for (auto* splitter : findChildren<QSplitter*>())
        if (!splitter->objectName().isEmpty())
            settings.setSplitterState(splitter->objectName(), splitter->saveState());
    if (m_model->rowCount() > 0)
        settings.setTableHeaderState(m_table->horizontalHeader()->saveState());
}

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open…"), this, [this] {
        const auto files = QFileDialog::getOpenFileNames(this, tr("Open session files"));
        if (!files.isEmpty())
            openPaths(files);
    });
    open->setShortcut(QKeySequence::Open);
    auto* csv = file->addAction(tr("&Export table as CSV…"), this, [this] {
        const auto path =
            QFileDialog::getSaveFileName(this, tr("Export CSV"), QStringLiteral("gapscope.csv"));
        if (path.isEmpty())
            return;
        if (m_session && !m_session->complete)
            statusBar()->showMessage(tr("The metrics are still being computed: export once they are"), 5000);
        else if (!exportCsv(path))
            statusBar()->showMessage(tr("Could not write %1").arg(path), 5000);
    });
    csv->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addAction(tr("Export gap chart as &PNG, PDF or SVG…"), this, [this] {
        const auto path =
            QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("gap-chart.png"),
                                         tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
        if (path.isEmpty())
            return;
        const QString err = savePlot(m_chart->plot(), path);
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
                        if (!path.isEmpty() && !saveSession(path))
                            statusBar()->showMessage(
                                tr("Could not save the session (the demo lives inside the app)"), 5000);
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
                const QString err = exportReportFolder(*this, folder);
                statusBar()->showMessage(err.isEmpty() ? tr("Report written to %1").arg(folder) : err, 6000);
            })
        ->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    file->addSeparator();
    file->addAction(tr("&Quit"), qApp, &QApplication::quit)->setShortcut(QKeySequence::Quit);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Find op"), this, [this] { m_filter->setFocus(); })->setShortcut(QKeySequence::Find);
    view->addAction(tr("&Next divergent op"), this, [this] { stepDivergent(+1); })
        ->setShortcut(QKeySequence(Qt::Key_F3));
    view->addAction(tr("&Previous divergent op"), this, [this] { stepDivergent(-1); })
        ->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
    view->addAction(tr("Op where the &error grows most"), this,
                    [this] {
                        if (const auto top = m_model->topIntroducer())
                            selectRow(*top);
                        else
                            statusBar()->showMessage(
                                tr("No op doubles the error it receives (or the metrics are not in yet)"),
                                3000);
                    })
        ->setShortcut(QKeySequence(tr("Ctrl+I")));

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("Open &demo"), this, &MainWindow::openDemo);
}

void MainWindow::openPaths(const QStringList& paths) {
    // Newly dropped files come first: they replace files of the same kind.
    QStringList merged = paths;
    if (!m_demo)
        for (const auto& p : m_paths)
            if (!merged.contains(p))
                merged << p;
    m_paths = merged;
    m_demo = false;
    m_options.comparison.run.reset();
    reload();
}

void MainWindow::openDemo() {
    m_paths.clear();
    m_demo = true;
    m_options.comparison.run.reset();
    reload();
}

void MainWindow::reload() {
    if (m_demo)
        m_loader->loadDemo(m_options);
    else
        m_loader->loadPaths(m_paths, m_options);
}

void MainWindow::fillRecent() {
    m_recent->clear();
    const auto recent = AppSettings().recentSessions();
    for (const auto& files : recent) {
        QStringList names;
        for (const auto& f : files)
            names << QFileInfo(f).fileName();
        m_recent->addAction(names.join(QStringLiteral(", ")), this, [this, files] {
            m_paths.clear();
            openPaths(files);
        });
    }
    m_recent->setEnabled(!recent.isEmpty());
}

bool MainWindow::saveSession(const QString& path) {
    if (m_demo || m_paths.isEmpty())
        return false;
    SessionFile s;
    s.files = m_paths;
    if (m_options.comparison.run)
        s.run = static_cast<int>(*m_options.comparison.run);
    const QString err = writeSessionFile(path, s);
    if (!err.isEmpty())
        statusBar()->showMessage(err, 5000);
    return err.isEmpty();
}

bool MainWindow::openSessionFile(const QString& path) {
    QString error;
    const auto s = readSessionFile(path, &error);
    if (!s) {
        m_banner->setText(error);
        m_banner->show();
        return false;
    }
    m_paths = s->files;
    m_demo = false;
    m_options.comparison.run =
        s->run ? std::optional<std::size_t>(static_cast<std::size_t>(*s->run)) : std::nullopt;
    reload();
    return true;
}

void MainWindow::fillRuns() {
    m_runs->clear();
    if (!m_session || !m_session->dump)
        return;
    for (std::size_t r = 0; r < m_session->dump->runs.size(); ++r) {
        const auto& run = m_session->dump->runs[r];
        m_runs->addItem(tr("%1: %2 (%3 events)")
                            .arg(r)
                            .arg(QString::fromStdString(run.name.value_or("unnamed")))
                            .arg(run.events.size()),
                        static_cast<qulonglong>(r));
    }
    if (m_session->comparison)
        m_runs->setCurrentIndex(static_cast<int>(m_session->comparison->run));
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

void MainWindow::showSession(std::shared_ptr<const Session> session, const QStringList& pathErrors) {
    m_session = std::move(session);
    m_model->setSession(m_session);
    m_coverage->setSession(m_session);
    m_chart->setSession(m_session);
    m_tensors->setSession(m_session);
    m_chart->setMetric(AppSettings().chartMetric());
    fillRuns();
    if (!m_demo && m_session->comparison) {
        AppSettings().addRecentSession(m_paths);
        fillRecent();
    }

    QStringList lines = pathErrors;
    for (const auto& e : m_session->errors)
        lines << QString::fromStdString(e.describe());
    for (const auto& m : m_session->missing)
        lines << tr("%1 missing: drop it here").arg(QString::fromStdString(m));
    m_banner->setText(lines.join(QLatin1Char('\n')));
    m_banner->setVisible(!lines.isEmpty());
    m_pages->setCurrentIndex(m_session->comparison ? 1 : 0);
    if (!m_savedHeader.isEmpty()) {
        // The user's column widths and order win over the automatic layout.
        m_table->horizontalHeader()->restoreState(m_savedHeader);
        m_savedHeader.clear();
    } else {
        m_table->resizeColumnsToContents();
        // Fused groups list many ops: keep the op columns readable, the numbers visible.
        for (int col : {OpTableModel::AotOps, OpTableModel::RuntimeOps})
            m_table->setColumnWidth(col, std::min(m_table->columnWidth(col), 280));
        m_table->setColumnWidth(OpTableModel::Handles,
                                std::min(m_table->columnWidth(OpTableModel::Handles), 120));
        // Metric cells hold "…" until measured: leave room for the numbers.
        for (int col = OpTableModel::Mse; col <= OpTableModel::Gain; ++col)
            m_table->setColumnWidth(col, std::max(m_table->columnWidth(col), 72));
    }
    m_coverageView->resizeColumnsToContents();
    m_autoSelected.reset();
    if (m_session->comparison && !m_session->comparison->rows.empty()) {
        statusBar()->showMessage(
            tr("%1 ops aligned; computing their metrics…").arg(m_session->comparison->rows.size()));
        selectRow(std::size_t{0});
        m_autoSelected = std::size_t{0};
    }
}

void MainWindow::finishSession(std::shared_ptr<const Session> session) {
    if (session != m_session)
        return;
    m_progress->hide();
    m_cancel->hide();
    m_chartRefresh->stop();
    m_model->allRowsChanged();                            // the first-divergence mark
    m_table->resizeColumnToContents(OpTableModel::Index); // room for it
    m_coverage->setSession(m_session);
    m_coverageView->resizeColumnsToContents();
    m_chart->refresh();
    if (m_session->comparison) {
        const auto rows = m_session->comparison->rows.size();
        const auto top = m_model->topIntroducer();
        statusBar()->showMessage(
            tr("%1 ops compared, %2 coverage items%3%4")
                .arg(rows)
                .arg(m_session->comparison->coverage.size())
                .arg(m_session->first_divergence
                         ? tr(", first divergence ⚑ at row %1").arg(m_session->first_divergence->row)
                         : QString())
                .arg(top ? tr(", error grows most ▲ at row %1 (%2)")
                               .arg(*top)
                               .arg(QString::fromStdString(displayOpName(m_session->comparison->rows[*top])))
                         : QString()));
        // Jump to the first divergence unless the user picked an op meanwhile.
        if (m_session->first_divergence && m_chart->selectedRow() == m_autoSelected)
            selectRow(m_session->first_divergence->row);
    } else {
        statusBar()->clearMessage();
    }
    emit sessionShown();
}

void MainWindow::selectRow(std::optional<std::size_t> row) {
    if (m_selecting)
        return;
    m_selecting = true;
    m_chart->setSelectedRow(row);
    m_tensors->setRow(row);
    if (row) {
        const int source = m_model->modelRow(*row);
        const QModelIndex proxy = m_proxy->mapFromSource(m_model->index(source, 0));
        if (proxy.isValid()) {
            m_table->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect |
                                                                  QItemSelectionModel::Rows);
            m_table->scrollTo(proxy);
        }
    }
    m_selecting = false;
}

void MainWindow::stepDivergent(int direction) {
    if (!m_session || !m_session->comparison)
        return;
    const auto& order = m_chart->order();
    const auto info = findMetric(m_session->threshold.metric);
    if (!info || order.empty())
        return;
    auto pos =
        std::find(order.begin(), order.end(), m_chart->selectedRow().value_or(order.front())) - order.begin();
    for (std::size_t step = 1; step <= order.size(); ++step) {
        const auto i = static_cast<std::size_t>(
            (pos + direction * static_cast<long>(step) + static_cast<long>(order.size()) * 2) %
            static_cast<long>(order.size()));
        const auto v = rowMetric(m_session->comparison->rows[order[i]], m_session->threshold.metric);
        if (v && worseThan(*info, *v, m_session->threshold.value)) {
            selectRow(order[i]);
            return;
        }
    }
    statusBar()->showMessage(tr("No op is past the threshold"), 3000);
}

bool MainWindow::exportCsv(const QString& path) {
    if (!m_session || !m_session->comparison || !m_session->complete)
        return false;
    std::ostringstream out;
    writeComparisonCsv(out, *m_session->comparison);
    return !writeFileAtomically(path.toStdString(), std::string_view(out.str()));
}

void MainWindow::screenshotWhenLoaded(const QString& path, std::function<void(bool)> done) {
    auto shoot = [this, path, done] {
        // Let layouts and plots settle before grabbing.
        QTimer::singleShot(200, this, [this, path, done] { done(grab().save(path, "PNG")); });
    };
    if (m_loader->busy())
        connect(this, &MainWindow::sessionShown, this, shoot, Qt::SingleShotConnection);
    else
        shoot();
}

} // namespace gapscope
