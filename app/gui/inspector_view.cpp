#include "app/gui/inspector_view.h"

#include "app/gui/app_settings.h"
#include "app/gui/comparison_selectors.h"
#include "app/gui/session_model.h"
#include "app/gui/tab_panes.h"
#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "widgets/bounded_text_delegate.h"
#include "widgets/comparison_banners.h"
#include "widgets/coverage_model.h"
#include "widgets/fix_view.h"
#include "widgets/gap_chart.h"
#include "widgets/graph_view.h"
#include "widgets/op_filter_proxy.h"
#include "widgets/op_table_model.h"
#include "widgets/op_table_view.h"
#include "widgets/plot_export.h"
#include "widgets/profile_model.h"
#include "widgets/profile_view.h"
#include "widgets/run_diff_view.h"
#include "widgets/speed_accuracy_chart.h"
#include "widgets/stage_ladder_view.h"
#include "widgets/step_matrix_view.h"
#include "widgets/tensor_panel.h"
#include "widgets/threshold_editor.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

namespace gapscope {

InspectorView::InspectorView(SessionModel* sessions, QWidget* parent)
    : QWidget(parent), m_sessions(sessions), m_model(new OpTableModel(this)),
      m_proxy(new OpFilterProxy(this)), m_coverage(new CoverageModel(this)), m_profile(new ProfileView),
      m_table(new OpTableView), m_coverageView(new QTableView), m_chart(new GapChart),
      m_speed(new SpeedAccuracyChart), m_charts(new QTabWidget), m_tensors(new TensorPanel),
      m_graph(new GraphView), m_runDiff(new RunDiffView), m_steps(new StepMatrixView),
      m_ladder(new StageLadderView), m_filter(new QLineEdit), m_shownCount(new QLabel),
      m_threshold(new ThresholdEditor), m_selectors(new ComparisonSelectors),
      m_banners(new ComparisonBanners), m_chartRefresh(new QTimer(this)) {
    m_proxy->setSourceModel(m_model);
    m_coverageView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_coverageView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_coverageView->verticalHeader()->hide();
    m_coverageView->setItemDelegate(new BoundedTextDelegate(m_coverageView));
    m_coverageView->setAlternatingRowColors(true);
    m_coverageView->setWordWrap(false);
    m_table->setModel(m_proxy);
    // Whatever the splitters do, the table keeps room for eight rows.
    m_table->setMinimumHeight(kMinTableRows * m_table->verticalHeader()->defaultSectionSize() +
                              m_table->horizontalHeader()->sizeHint().height() +
                              m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4);
    m_coverageView->setModel(m_coverage);
    m_coverageView->horizontalHeader()->setStretchLastSection(true);

    auto* filterRow = new QHBoxLayout;
    m_filter->setObjectName(QStringLiteral("opFilter"));
    m_filter->setPlaceholderText(tr("Filter ops, handles, status…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(160); // room to read what is typed, on a 1024 px screen too
    filterRow->addWidget(m_filter, 1);
    m_shownCount->setObjectName(QStringLiteral("shownCount"));
    m_shownCount->setStyleSheet(QStringLiteral("QLabel { color: #8a4b00; font-weight: bold; }"));
    m_shownCount->hide();
    filterRow->addWidget(m_shownCount);
    filterRow->addWidget(m_threshold);
    auto* tableBox = new QWidget;
    auto* tl = new QVBoxLayout(tableBox);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(m_banners);
    tl->addLayout(filterRow);
    tl->addWidget(buildTabs(), 1);

    auto* top = new QSplitter(Qt::Vertical);
    m_top = top;
    top->setObjectName(QStringLiteral("tableAndTensors"));
    top->addWidget(tableBox);
    top->addWidget(m_tensors);
    auto* main = new QSplitter(Qt::Vertical);
    main->setObjectName(QStringLiteral("viewsAndChart"));
    main->addWidget(top);
    // Below the tensors: the gap along the ops, or each op's time against its gap.
    m_charts->setObjectName(QStringLiteral("charts"));
    // Tabs on the side: a tab bar above would cost the window a line of height.
    m_charts->setTabPosition(QTabWidget::West);
    m_charts->addTab(m_chart, tr("Gap"));
    m_charts->addTab(m_speed, tr("Time × gap"));
    m_charts->setTabToolTip(SpeedChartTab,
                            tr("Each op's share of the run's time against its gap: the slow op "
                               "that is also the inaccurate one"));
    main->addWidget(m_charts);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 2);
    main->setSizes({700, 240});
    top->setSizes({420, 360});
    for (QSplitter* s : {top, main})
        s->setChildrenCollapsible(false); // a dragged splitter never hides a view
    top->setStretchFactor(0, 3);          // the table (or graph) grows first
    top->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(main);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &OpFilterProxy::setText);
    // A filter hides rows: say how many, so that a forgotten one is seen.
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_proxy, signal, this, &InspectorView::showShownCount);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &InspectorView::showShownCount);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &InspectorView::showShownCount);
    // The page follows the session model: each stage of a load, and a threshold changed.
    connect(m_sessions, &SessionModel::opened, this, &InspectorView::showSession);
    connect(m_sessions, &SessionModel::rowsMeasured, this, &InspectorView::updateSession);
    connect(m_sessions, &SessionModel::completed, this, &InspectorView::finishSession);
    connect(m_sessions, &SessionModel::rejudged, this, &InspectorView::rejudge);
    connect(m_sessions, &SessionModel::measuringStopped, this, &InspectorView::measuringStopped);
    // The editor shows the model's threshold and changes it; the model owns it.
    m_threshold->setThreshold(m_sessions->threshold());
    connect(m_sessions, &SessionModel::thresholdChanged, m_threshold, &ThresholdEditor::setThreshold);
    connect(m_threshold, &ThresholdEditor::filteringChanged, this, [this] { applyFilter(); });
    connect(m_threshold, &ThresholdEditor::thresholdChanged, this, [this](const MetricThreshold& t) {
        AppSettings().setThreshold(t); // the user's own: remembered for the next start
        m_sessions->setThreshold(t);   // rejudged: every view of the page follows
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                selectRow(static_cast<std::size_t>(current.data(OpTableModel::RowIndexRole).toULongLong()));
            });
    connect(m_chart, &GapChart::rowClicked, this, [this](std::size_t row) { selectRow(row); });
    connect(m_ladder, &StageLadderView::rowSelected, this, [this](std::size_t row) { selectRow(row); });
    // Column choices are kept as they are made: a killed process loses none (issue 56).
    connect(m_table, &OpTableView::columnsChanged, this, [this] {
        m_savedHeader = m_table->horizontalHeader()->saveState();
        AppSettings().setTableHeaderState(m_savedHeader, OpTableModel::columns());
    });
    connect(m_table, &OpTableView::showInGraphRequested, this, [this](std::size_t row) {
        selectRow(row);
        showTab(GraphTab);
    });
    connect(m_table, &OpTableView::exportOpRequested, this, [this](std::size_t row) {
        const QString folder =
            m_session && m_session->etdump_file
                ? QFileInfo(QString::fromStdString(m_session->etdump_file->path())).absolutePath()
                : QDir::homePath();
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export this op's figure"), QDir(folder).filePath(QStringLiteral("op-%1.png").arg(row)),
            tr("PNG image (*.png)"));
        if (!path.isEmpty())
            if (const QString error = exportOpFigure(row, path); !error.isEmpty())
                QMessageBox::warning(this, tr("Export this op's figure"), error);
    });
    connect(m_speed, &SpeedAccuracyChart::rowClicked, this, [this](std::size_t row) { selectRow(row); });
    connect(m_graph, &GraphView::rowClicked, this, [this](std::size_t row) { selectRow(row); });
    // Rows arrive in batches during a staged load: redraw the chart at most a few times a second.
    m_chartRefresh->setSingleShot(true);
    m_chartRefresh->setInterval(150);
    connect(m_chartRefresh, &QTimer::timeout, this, [this] {
        m_chart->updateSession(m_session);
        m_graph->updateSession(m_session);
    });
    connect(m_selectors, &ComparisonSelectors::compareRequested, this, &InspectorView::compareRequested);
    connect(m_selectors, &ComparisonSelectors::captureRequested, this, &InspectorView::captureRequested);
    connect(m_chart, &GapChart::metricChanged, this,
            [](Metric metric) { AppSettings().setChartMetric(metric); });
}

QTabWidget* InspectorView::buildTabs() {
    auto* tabs = new QTabWidget;
    tabs->addTab(m_table, tr("Ops"));
    tabs->addTab(m_coverageView, tr("Coverage"));
    tabs->addTab(m_graph, tr("Graph"));
    // Scrolled rather than squeezed: the A/B page (table, chart and four
    // heatmaps) never raises the window's minimum height past a laptop's.
    auto* abScroll = new QScrollArea;
    abScroll->setWidget(m_runDiff);
    abScroll->setWidgetResizable(true);
    abScroll->setFrameShape(QFrame::NoFrame);
    m_runDiff->setMinimumHeight(m_runDiff->minimumSizeHint().height());
    tabs->addTab(abScroll, tr("A/B"));
    tabs->setTabToolTip(AbTab, tr("This session (A) against another (B): File → Compare With…"));
    tabs->addTab(m_steps, tr("Steps"));
    tabs->setTabToolTip(StepsTab, tr("Every execution of a decode loop against its own step: ops × steps"));
    // The Inspector's timing table (issue 56: the app had none; XNNPACK's own
    // operator times showed only as text in Coverage).
    tabs->addTab(m_profile, tr("Profile"));
    tabs->setTabToolTip(ProfileTab,
                        tr("Every timed event, p10/p50/p90 over the runs, as ExecuTorch's Inspector"));
    tabs->addTab(m_ladder, tr("Stages"));
    tabs->setTabToolTip(StagesTab, tr("Which stage loses the accuracy: every reference of this run, from the "
                                      "float model to the device, and the SNR each step adds per op"));
    m_tabs = tabs;
    // The method, reference and run beside the tabs (the row they sit in has
    // room to spare), so that at 1024 px the filter row keeps the filter readable.
    tabs->setCornerWidget(m_selectors, Qt::TopRightCorner);
    connect(tabs, &QTabWidget::currentChanged, this, [this](int tab) {
        const TabPanes panes = tabPanes(tab);
        m_tensors->setVisible(panes.tensors);
        m_charts->setVisible(panes.chart);
        // A tall tab takes three quarters of the split; leaving it gives the table its split back.
        const bool tall = panes.tall;
        if (tall && m_userSplit.isEmpty() && m_top) {
            m_userSplit = m_top->sizes();
            const int total = m_userSplit.value(0) + m_userSplit.value(1);
            m_top->setSizes({total * 3 / 4, total - total * 3 / 4});
        } else if (!tall && !m_userSplit.isEmpty() && m_top) {
            m_top->setSizes(std::exchange(m_userSplit, {}));
        }
    });
    return tabs;
}

ProfileModel* InspectorView::profileModel() const {
    return m_profile->model();
}

void InspectorView::showChart(int chart) {
    m_charts->setCurrentIndex(chart);
}

void InspectorView::restoreLayout(const AppSettings& settings) {
    settings.restoreSplitters(*this);
    m_savedHeader = settings.tableHeaderState(OpTableModel::columns());
}

void InspectorView::saveLayout(AppSettings& settings) const {
    settings.saveSplitters(*this);
    if (m_model->rowCount() > 0)
        settings.setTableHeaderState(m_table->horizontalHeader()->saveState(), OpTableModel::columns());
}

QTableView* InspectorView::opView() const {
    return m_table;
}

QComboBox* InspectorView::runSelector() const {
    return m_selectors->runs();
}
QComboBox* InspectorView::methodSelector() const {
    return m_selectors->methods();
}
QComboBox* InspectorView::captureSelector() const {
    return m_selectors->captures();
}

void InspectorView::showTab(int tab) {
    m_tabs->setCurrentIndex(tab);
}

void InspectorView::focusTable() {
    m_table->setFocus(Qt::ShortcutFocusReason);
}

void InspectorView::focusFilter() {
    m_filter->setFocus();
}

QLabel* InspectorView::warningBanner() const {
    return m_banners->warnings();
}

QLabel* InspectorView::noteBanner() const {
    return m_banners->notes();
}

void InspectorView::showWarnings() {
    m_banners->setSession(m_session.get());
}

void InspectorView::sizeColumns() {
    // The user's column widths and order (restored once) win over the automatic layout.
    m_table->sizeColumns(std::exchange(m_savedHeader, {}), m_model->rowCount());
    m_coverageView->resizeColumnsToContents();
}

void InspectorView::applyFilter() {
    const MetricThreshold t = m_threshold->threshold();
    m_proxy->setThreshold(m_threshold->filtering() ? std::optional<MetricThreshold>(t) : std::nullopt);
}

void InspectorView::showSession(std::shared_ptr<const Session> session) {
    m_chartRefresh->stop();
    // Another A: the A/B difference shown on the graph is of the previous one until paired again.
    m_graph->setDifference({}, {});
    // Another run, method or capture of the same files (one workspace) keeps the
    // columns as they are: no jump under the user's eyes, and sizing 3,000 rows
    // to their contents would be most of the switch's time.
    // The same ETDump as mapped (a reload maps it afresh) tells it.
    const bool sameFiles =
        m_session && session && m_session->etdump_file && m_session->etdump_file == session->etdump_file;
    m_session = std::move(session);
    m_proxy->setPinnedRow(std::nullopt);             // row indices of another snapshot
    m_chart->setMetric(AppSettings().chartMetric()); // before the session: one chart build, not two
    m_model->setSession(m_session);
    m_coverage->setSession(m_session);
    m_profile->setSession(m_session);
    m_chart->setSession(m_session);
    m_speed->setSession(m_session);
    m_tensors->setSession(m_session);
    m_graph->setSession(m_session);
    m_selectors->setSession(m_session);
    // The ladder of the session before is not this one's (LadderController brings its own).
    m_ladder->setLadder(nullptr, tr("The stage ladder is computed once the session is loaded."));
    m_ladder->fixView()->setReport(nullptr); // another session's, until the ladder's job reads this one's
    m_table->setColumnHidden(OpTableModel::column(OpTableModel::Tail::LostMost), true);
    showWarnings();
    if (sameFiles)
        m_table->fitIndexColumn(m_model->rowCount());
    else
        sizeColumns();
    m_autoSelected.reset();
    if (m_session && m_session->comparison && !m_session->comparison->rows.empty()) {
        // The first op is selected a moment later, on a timer (a zero-delay
        // call would run among this turn's posted events): the page is laid
        // out and painted first, and its heatmaps do not lengthen this stall.
        m_autoSelectPending = true;
        QTimer::singleShot(5, this, [this, shown = ++m_shown] {
            if (m_shown == shown)
                autoSelectFirst();
        });
    }
}

void InspectorView::autoSelectFirst() {
    if (!m_autoSelectPending)
        return;
    m_autoSelectPending = false;
    if (!m_autoSelected && !m_table->selectionModel()->hasSelection()) { // else: chosen already
        selectRow(std::size_t{0});
        m_autoSelected = std::size_t{0};
    }
    // The keys go to the ops, not to the filter box (which would take typed
    // shortcuts as text). Here, not before: a table taking the focus selects
    // its current row, the very work deferred.
    if (m_filter->text().isEmpty()) // a hidden table takes the focus when shown
        m_table->setFocus(Qt::OtherFocusReason);
}

void InspectorView::updateSession(std::shared_ptr<const Session> snapshot, std::size_t first,
                                  std::size_t last) {
    m_session = std::move(snapshot);
    m_model->updateSession(m_session, first, last);
    m_tensors->updateSession(m_session);
    if (!m_chartRefresh->isActive())
        m_chartRefresh->start(); // a few redraws a second, not one per snapshot
}

void InspectorView::finishSession(std::shared_ptr<const Session> snapshot) {
    autoSelectFirst(); // if the load finished before the deferred selection ran
    m_chartRefresh->stop();
    m_session = std::move(snapshot);
    m_model->updateSession(m_session);            // the first-divergence and gain marks
    m_table->fitIndexColumn(m_model->rowCount()); // room for them
    m_tensors->updateSession(m_session);
    m_coverage->setSession(m_session);
    m_coverageView->resizeColumnsToContents();
    m_profile->setSession(m_session); // the timing table lands with the times
    m_chart->updateSession(m_session);
    m_speed->updateSession(m_session); // the times land with the findings
    m_graph->updateSession(m_session);
    showWarnings(); // the provenance check lands with the findings
    // Jump to the first divergence unless the user picked an op meanwhile.
    if (m_session && m_session->first_divergence && m_chart->selectedRow() == m_autoSelected)
        selectRow(m_session->first_divergence->row);
}

void InspectorView::measuringStopped() {
    m_chartRefresh->stop();
    m_model->setMeasuringStopped(true);
    m_tensors->measuringStopped();
}

void InspectorView::setLadder(std::shared_ptr<const StageLadder> ladder, const QString& why) {
    m_ladder->setLadder(ladder, why);
    m_model->setLadder(ladder);
    m_chart->setLadder(m_model->ladder() ? ladder : nullptr); // the model refuses another run's
    m_table->setColumnHidden(OpTableModel::column(OpTableModel::Tail::LostMost), !m_model->ladder());
    if (m_model->ladder())
        m_table->resizeColumnToContents(OpTableModel::column(OpTableModel::Tail::LostMost));
}

void InspectorView::selectRow(std::optional<std::size_t> row) {
    if (m_selecting)
        return;
    m_selecting = true;
    m_ladder->setSelectedRow(row);
    m_chart->setSelectedRow(row);
    m_speed->setSelectedRow(row);
    m_tensors->setRow(row);
    m_graph->setSelectedRow(row);
    if (row) {
        const int source = m_model->modelRow(*row);
        QModelIndex proxy = m_proxy->mapFromSource(m_model->index(source, 0));
        // Hidden by the filter: shown anyway (and said in the count), never a
        // selection the table does not show. Another selection lets it go.
        if (!proxy.isValid() && source >= 0 && m_proxy->filtering()) {
            m_proxy->setPinnedRow(*row);
            proxy = m_proxy->mapFromSource(m_model->index(source, 0));
        } else if (m_proxy->pinnedRow() && *m_proxy->pinnedRow() != *row) {
            m_proxy->setPinnedRow(std::nullopt);
            proxy = m_proxy->mapFromSource(m_model->index(source, 0));
        }
        if (proxy.isValid()) {
            m_table->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect |
                                                                  QItemSelectionModel::Rows);
            m_table->scrollTo(proxy);
        }
    }
    m_selecting = false;
}

SessionFile InspectorView::viewState() const {
    SessionFile view;
    view.filter = m_filter->text();
    const auto row = m_chart->selectedRow();
    if (row && m_session && m_session->comparison && *row < m_session->comparison->rows.size()) {
        view.selectedRow = static_cast<int>(*row);
        view.selectedOp = QString::fromStdString(displayOpName(m_session->comparison->rows[*row]));
    }
    return view;
}

void InspectorView::restoreViewState(const SessionFile& view) {
    m_filter->setText(view.filter);
    if (!m_session || !m_session->comparison)
        return;
    if (const auto row = savedSelection(view, *m_session->comparison)) {
        m_autoSelectPending = false; // the user's op, not the first one
        m_autoSelected.reset();
        selectRow(row);
    }
}

void InspectorView::showShownCount() {
    const int shown = m_proxy->rowCount(), all = m_model->rowCount();
    m_shownCount->setVisible(shown < all);
    m_shownCount->setText(m_proxy->pinnedRow()
                              ? tr("%1 of %2 shown (filter, and the selected op)").arg(shown).arg(all)
                              : tr("%1 of %2 shown (filter)").arg(shown).arg(all));
}

void InspectorView::clearViewState() {
    m_filter->clear();
    m_graph->clearSearch();
}

void InspectorView::rejudge(std::shared_ptr<const Session> snapshot) {
    // The snapshot judged by the new threshold: first divergence, filter, chart
    // line, the graph's ⚑.
    m_session = std::move(snapshot);
    m_model->updateSession(m_session);
    m_tensors->updateSession(m_session);
    m_chart->updateSession(m_session);
    m_speed->updateSession(m_session);
    m_graph->updateSession(m_session);
    applyFilter();
}

QString InspectorView::exportOpFigure(std::size_t row, const QString& path) {
    selectRow(row); // the figure is the tensor panel's, of this op
    return savePng(m_tensors->renderFigure(), path);
}

bool InspectorView::stepDivergent(int direction) {
    if (!m_session || !m_session->comparison)
        return false;
    const auto next =
        stepPastThreshold(*m_session->comparison, m_chart->selectedRow(), direction, m_session->threshold);
    if (next)
        selectRow(*next);
    return next.has_value();
}

bool InspectorView::selectStrongestGain() {
    const auto top = m_model->topIntroducer();
    if (top)
        selectRow(*top);
    return top.has_value();
}

} // namespace gapscope
