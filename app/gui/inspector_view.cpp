#include "app/gui/inspector_view.h"

#include "app/gui/app_settings.h"
#include "core/align/run_methods.h"
#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "widgets/coverage_model.h"
#include "widgets/gap_chart.h"
#include "widgets/op_filter_proxy.h"
#include "widgets/op_table_model.h"
#include "widgets/tensor_panel.h"
#include "widgets/threshold_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace gapscope {

InspectorView::InspectorView(QWidget* parent)
    : QWidget(parent), m_model(new OpTableModel(this)), m_proxy(new OpFilterProxy(this)),
      m_coverage(new CoverageModel(this)), m_table(new QTableView), m_coverageView(new QTableView),
      m_chart(new GapChart), m_tensors(new TensorPanel), m_filter(new QLineEdit),
      m_threshold(new ThresholdEditor), m_runs(new QComboBox), m_methods(new QComboBox),
      m_methodLabel(new QLabel(tr("Method:"))), m_warnings(new QLabel), m_chartRefresh(new QTimer(this)) {
    m_proxy->setSourceModel(m_model);
    for (QTableView* view : {m_table, m_coverageView}) {
        view->setSelectionBehavior(QAbstractItemView::SelectRows);
        view->setSelectionMode(QAbstractItemView::SingleSelection);
        view->verticalHeader()->hide();
        view->setAlternatingRowColors(true);
        view->setWordWrap(false);
    }
    m_table->setModel(m_proxy);
    // One tab stop: Tab leaves the table for the tensor panel and the chart
    // (arrows move within it), and the focused view shows a frame.
    m_table->setTabKeyNavigation(false);
    m_table->setStyleSheet(QStringLiteral("QTableView:focus { border: 2px solid palette(highlight); }"));
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(OpTableModel::Index, Qt::AscendingOrder);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_coverageView->setModel(m_coverage);
    m_coverageView->horizontalHeader()->setStretchLastSection(true);

    auto* filterRow = new QHBoxLayout;
    m_filter->setPlaceholderText(tr("Filter ops, handles, status…"));
    m_filter->setClearButtonEnabled(true);
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_threshold);
    filterRow->addWidget(m_methodLabel);
    filterRow->addWidget(m_methods);
    m_methods->setToolTip(tr("The program method to compare (each method needs its own capture)"));
    m_methodLabel->hide(); // shown for multi-method programs only
    m_methods->hide();
    filterRow->addWidget(new QLabel(tr("Run:")));
    filterRow->addWidget(m_runs);
    m_runs->setToolTip(tr("The RunData block of the ETDump to compare"));
    // What the comparison warns about (a capture of another method or graph, a
    // run that does not fit): above the table, where the numbers it concerns are.
    m_warnings->setObjectName(QStringLiteral("comparisonWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::PlainText);
    m_warnings->setStyleSheet(QStringLiteral(
        "QLabel { background: #fff4ce; color: #5c4400; border: 1px solid #e0c060; padding: 4px; }"));
    m_warnings->hide();
    auto* tableBox = new QWidget;
    auto* tl = new QVBoxLayout(tableBox);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(m_warnings);
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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(main);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &OpFilterProxy::setText);
    m_threshold->setThreshold(AppSettings().threshold());
    connect(m_threshold, &ThresholdEditor::filteringChanged, this, [this] { applyFilter(); });
    connect(m_threshold, &ThresholdEditor::thresholdChanged, this, [this](const MetricThreshold& t) {
        AppSettings().setThreshold(t);
        if (m_session) {
            // A new snapshot judged by the new threshold: first divergence, filter, chart line.
            m_session = adopt(m_session);
            m_model->updateSession(m_session);
            m_tensors->updateSession(m_session);
            m_chart->updateSession(m_session);
            applyFilter();
        }
        emit thresholdChanged(t);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                selectRow(static_cast<std::size_t>(current.data(OpTableModel::RowIndexRole).toULongLong()));
            });
    connect(m_chart, &GapChart::rowClicked, this, [this](std::size_t row) { selectRow(row); });
    // Rows arrive in batches during a staged load: redraw the chart at most a few times a second.
    m_chartRefresh->setSingleShot(true);
    m_chartRefresh->setInterval(150);
    connect(m_chartRefresh, &QTimer::timeout, this, [this] { m_chart->updateSession(m_session); });
    connect(m_runs, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        if (!m_session || !m_session->comparison)
            return;
        const auto& c = *m_session->comparison;
        const auto run = static_cast<std::size_t>(m_runs->itemData(index).toULongLong());
        if (c.run == run)
            return;
        // A run that fits another method (and only that one) is compared as that method.
        std::string method = c.method;
        if (run < c.run_methods.size() && c.run_methods[run].size() == 1)
            method = c.run_methods[run].front();
        emit compareRequested(QString::fromStdString(method), run);
    });
    connect(m_methods, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const QString method = m_methods->itemText(index);
        if (m_session && m_session->comparison && m_session->comparison->method != method.toStdString())
            emit compareRequested(method, std::nullopt);
    });
    connect(m_chart, &GapChart::metricChanged, this,
            [](const QString& metric) { AppSettings().setChartMetric(metric); });
}

void InspectorView::restoreLayout(const AppSettings& settings) {
    for (auto* splitter : findChildren<QSplitter*>())
        if (const auto state = settings.splitterState(splitter->objectName()); !state.isEmpty())
            splitter->restoreState(state);
    m_savedHeader = settings.tableHeaderState(OpTableModel::ColumnCount);
}

void InspectorView::saveLayout(AppSettings& settings) const {
    for (auto* splitter : findChildren<QSplitter*>())
        if (!splitter->objectName().isEmpty())
            settings.setSplitterState(splitter->objectName(), splitter->saveState());
    if (m_model->rowCount() > 0)
        settings.setTableHeaderState(m_table->horizontalHeader()->saveState(), OpTableModel::ColumnCount);
}

void InspectorView::focusTable() {
    m_table->setFocus(Qt::ShortcutFocusReason);
}

void InspectorView::focusFilter() {
    m_filter->setFocus();
}

void InspectorView::fillRuns() {
    m_runs->clear();
    if (!m_session || !m_session->dump)
        return;
    for (std::size_t r = 0; r < m_session->dump->runs.size(); ++r) {
        const auto& run = m_session->dump->runs[r];
        QString methods;
        if (m_session->comparison && r < m_session->comparison->run_methods.size())
            for (const auto& m : m_session->comparison->run_methods[r])
                methods += QStringLiteral(" · ") + QString::fromStdString(m);
        m_runs->addItem(tr("%1: %2%3 (%4 events)")
                            .arg(r)
                            .arg(QString::fromStdString(run.name.value_or("unnamed")))
                            .arg(methods)
                            .arg(run.events.size()),
                        static_cast<qulonglong>(r));
    }
    if (m_session->comparison)
        m_runs->setCurrentIndex(static_cast<int>(m_session->comparison->run));
}

void InspectorView::fillMethods() {
    m_methods->clear();
    const bool multi = m_session && m_session->etrecord && isMultiMethod(*m_session->etrecord);
    m_methods->setVisible(multi);
    m_methodLabel->setVisible(multi);
    if (!multi)
        return;
    const auto& captured = m_session->capture_methods;
    for (const auto& method : methodNames(*m_session->etrecord)) {
        m_methods->addItem(QString::fromStdString(method));
        if (std::find(captured.begin(), captured.end(), method) == captured.end()) {
            // Rows of a method pair its runtime events with its own capture only.
            const int i = m_methods->count() - 1;
            m_methods->setItemData(i,
                                   tr("No capture of this method is open: capture it with "
                                      "gapscope-capture from-etrecord --method %1")
                                       .arg(QString::fromStdString(method)),
                                   Qt::ToolTipRole);
            if (auto* model = qobject_cast<QStandardItemModel*>(m_methods->model()))
                model->item(i)->setEnabled(false);
        }
    }
    if (m_session->comparison)
        m_methods->setCurrentText(QString::fromStdString(m_session->comparison->method));
}

void InspectorView::showWarnings() {
    const bool any = m_session && m_session->comparison && !m_session->comparison->warnings.empty();
    m_warnings->setVisible(any);
    if (!any)
        return;
    QStringList lines;
    for (const auto& w : m_session->comparison->warnings)
        lines << QStringLiteral("⚠ ") + QString::fromStdString(w);
    m_warnings->setText(lines.join(QLatin1Char('\n')));
}

void InspectorView::sizeColumns() {
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
}

std::shared_ptr<const Session> InspectorView::adopt(std::shared_ptr<const Session> snapshot) const {
    const MetricThreshold t = m_threshold->threshold();
    if (!snapshot || (snapshot->threshold.metric == t.metric && snapshot->threshold.value == t.value))
        return snapshot;
    return std::make_shared<const Session>(withThreshold(*snapshot, t));
}

void InspectorView::applyFilter() {
    const MetricThreshold t = m_threshold->threshold();
    m_proxy->setThreshold(QString::fromStdString(t.metric),
                          m_threshold->filtering() ? std::optional<double>(t.value) : std::nullopt);
}

void InspectorView::showSession(std::shared_ptr<const Session> session) {
    m_chartRefresh->stop();
    m_session = adopt(std::move(session));
    m_model->setSession(m_session);
    m_coverage->setSession(m_session);
    m_chart->setSession(m_session);
    m_tensors->setSession(m_session);
    m_chart->setMetric(AppSettings().chartMetric());
    fillMethods();
    fillRuns();
    showWarnings();
    sizeColumns();
    m_autoSelected.reset();
    if (m_session && m_session->comparison && !m_session->comparison->rows.empty()) {
        selectRow(std::size_t{0});
        m_autoSelected = std::size_t{0};
        // The keys go to the ops, not to the filter box (which would take typed
        // shortcuts as text).
        if (isVisible() && !m_filter->hasFocus())
            m_table->setFocus(Qt::OtherFocusReason);
    }
}

void InspectorView::updateSession(std::shared_ptr<const Session> snapshot, std::size_t first,
                                  std::size_t last) {
    m_session = adopt(std::move(snapshot));
    m_model->updateSession(m_session, first, last);
    m_tensors->updateSession(m_session);
    if (!m_chartRefresh->isActive())
        m_chartRefresh->start(); // a few redraws a second, not one per snapshot
}

void InspectorView::finishSession(std::shared_ptr<const Session> snapshot) {
    m_chartRefresh->stop();
    m_session = adopt(std::move(snapshot));
    m_model->updateSession(m_session);                    // the first-divergence and gain marks
    m_table->resizeColumnToContents(OpTableModel::Index); // room for them
    m_tensors->updateSession(m_session);
    m_coverage->setSession(m_session);
    m_coverageView->resizeColumnsToContents();
    m_chart->updateSession(m_session);
    showWarnings(); // the provenance check lands with the findings
    // Jump to the first divergence unless the user picked an op meanwhile.
    if (m_session && m_session->first_divergence && m_chart->selectedRow() == m_autoSelected)
        selectRow(m_session->first_divergence->row);
}

void InspectorView::measuringStopped() {
    m_chartRefresh->stop();
    m_model->setMeasuringStopped(true);
}

void InspectorView::selectRow(std::optional<std::size_t> row) {
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
