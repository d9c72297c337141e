#include "widgets/run_diff_view.h"

#include "core/runs/run_match.h"
#include "widgets/frozen_columns_table_view.h"
#include "widgets/metric_box.h"
#include "widgets/pair_tensor_view.h"
#include "widgets/run_diff_chart.h"
#include "widgets/run_diff_model.h"
#include "widgets/run_diff_proxy.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace gapscope {

RunDiffView::RunDiffView(QWidget* parent)
    : QWidget(parent), m_model(new RunDiffModel(this)), m_proxy(new RunDiffProxy(this)),
      m_table(new FrozenColumnsTableView(this)), m_chart(new RunDiffChart(this)),
      m_tensors(new PairTensorView(this)), m_summary(new QLabel(this)), m_warning(new QLabel(this)),
      m_swap(new QPushButton(tr("Swap A ↔ B"), this)), m_metric(new QComboBox(this)),
      m_worseOnly(new QCheckBox(tr("B worse by more than"), this)), m_margin(new QDoubleSpinBox(this)),
      m_unpaired(new QCheckBox(tr("Rows of one run only"), this)) {
    m_proxy->setSourceModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // A's row stays in view while the numbers scroll (issue 56: scrolling right
    // hid the op names); B and how much worse it is come next, the detail after.
    m_table->setFrozenColumns({RunDiffModel::A});
    {
        QHeaderView* h = m_table->horizontalHeader();
        int at = 1;
        for (const int col : {RunDiffModel::B, RunDiffModel::WorseBy, RunDiffModel::ValueA,
                              RunDiffModel::ValueB, RunDiffModel::Delta, RunDiffModel::Basis})
            h->moveSection(h->visualIndex(col), at++);
    }
    connect(m_table, &FrozenColumnsTableView::rowMenuRequested, this,
            [this](const QModelIndex& index, const QPoint& global) { rowMenu(index)->popup(global); });
    // Columns are fitted to the rows in view and 100 more, not to 1,000 (Qt's
    // default): fitting 3,000 pairings to 1,000 rows took 25-45 ms of the UI
    // thread on every pairing. The worst pairings are sorted first, so the
    // rows measured are the ones the user sees.
    m_table->horizontalHeader()->setResizeContentsPrecision(100);
    m_table->setObjectName(QStringLiteral("abTable"));
    m_summary->setWordWrap(true);
    // The summary's two lines, held while B loads (one line then): the tab
    // does not move when B arrives, and its chart and maps are not resized
    // and drawn a second time for it.
    m_summary->setMinimumHeight(2 * m_summary->fontMetrics().lineSpacing());
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warning->setObjectName(QStringLiteral("abWarning"));
    m_warning->setWordWrap(true);
    m_warning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warning->setStyleSheet(
        QStringLiteral("QLabel { background: #fff4ce; border: 1px solid #d8b24a; padding: 4px; }"));
    m_warning->hide();
    m_swap->setObjectName(QStringLiteral("abSwap"));
    m_swap->setToolTip(tr("Open B as the session and compare A beside it"));
    m_swap->setEnabled(false);
    connect(m_swap, &QPushButton::clicked, this, &RunDiffView::swapRequested);
    auto* exportButton = new QToolButton(this);
    exportButton->setObjectName(QStringLiteral("abExport"));
    exportButton->setText(tr("Export A/B"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("As &CSV…"), this, [this] { emit exportRequested(ExportFormat::Csv); });
    exportMenu->addAction(tr("As &JSON…"), this, [this] { emit exportRequested(ExportFormat::Json); });
    exportMenu->addAction(tr("As &Markdown…"), this,
                          [this] { emit exportRequested(ExportFormat::Markdown); });
    exportButton->setMenu(exportMenu);

    addMetrics(m_metric, [](const MetricInfo& m) { return m.tabled; });
    selectMetric(m_metric, m_model->metric());
    m_metric->setToolTip(tr("The metric each side shows, and the difference is taken of"));
    m_margin->setRange(0, 1e6);
    m_margin->setDecimals(3);
    m_margin->setValue(3);
    m_margin->setEnabled(false);
    m_unpaired->setChecked(true);
    m_worseOnly->setToolTip(tr("Only the pairings B made worse by more than this, in the metric's unit "
                               "(as gapscope-cli --fail-if-worse)"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric:"), this));
    controls->addWidget(m_metric);
    controls->addSpacing(12);
    controls->addWidget(m_worseOnly);
    controls->addWidget(m_margin);
    controls->addSpacing(12);
    controls->addWidget(m_unpaired);
    controls->addStretch(1);
    controls->addWidget(m_swap);
    controls->addWidget(exportButton);

    // Side by side: the tab has more width than height, and both want the height.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName(QStringLiteral("abSplitter"));
    split->addWidget(m_table);
    split->addWidget(m_chart);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({800, 520});
    m_chart->setMinimumWidth(320);
    // Heatmaps under ~180 px clip their titles (issue 56): the page scrolls instead.
    m_tensors->setMinimumHeight(180);
    m_table->setMinimumHeight(8 * (fontMetrics().height() + 8));
    // The tensors below: four heatmaps want the tab's whole width.
    auto* outer = new QSplitter(Qt::Vertical, this);
    outer->setObjectName(QStringLiteral("abTensorSplitter"));
    outer->addWidget(split);
    outer->addWidget(m_tensors);
    outer->setChildrenCollapsible(false);
    // The table gets two thirds: at 1280×720 it showed 7 rows (issue 56).
    outer->setStretchFactor(0, 2);
    outer->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_warning);
    layout->addLayout(controls);
    layout->addWidget(outer, 1);

    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { setMetric(selectedMetric(m_metric)); });
    const auto applyMargin = [this] {
        m_margin->setEnabled(m_worseOnly->isChecked());
        m_proxy->setWorseThan(m_worseOnly->isChecked() ? std::optional<double>(m_margin->value())
                                                       : std::nullopt);
        showSummary();
    };
    connect(m_worseOnly, &QCheckBox::toggled, this, applyMargin);
    connect(m_margin, &QDoubleSpinBox::valueChanged, this, applyMargin);
    connect(m_unpaired, &QCheckBox::toggled, this, [this](bool on) {
        m_proxy->setShowUnpaired(on);
        showSummary();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (m_selecting || !current.isValid())
                    return;
                const auto pair = static_cast<std::size_t>(current.data(RunDiffModel::PairRole).toInt());
                m_chart->setSelectedPair(pair);
                emit pairShown(pair);
                if (!m_autoSelecting)
                    emit pairSelected(pair);
            });
    // A click on the pairing shown for the user (already current) is a choice too.
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (index.isValid() && index.row() == m_table->currentIndex().row())
            emit pairSelected(static_cast<std::size_t>(index.data(RunDiffModel::PairRole).toInt()));
    });
    connect(m_chart, &RunDiffChart::pairClicked, this, [this](std::size_t pair) {
        selectPair(pair);
        emit pairShown(pair);
        emit pairSelected(pair);
    });
    setMessage(tr("Nothing to compare yet: open a session, then File → Compare With… another "
                  "(another backend, recipe or build of the same model)."));
}

void RunDiffView::setRuns(std::shared_ptr<const ComparedRuns> runs) {
    m_tensors->clear(tr("Select a pairing to see both runs' tensors."));
    m_model->setRuns(runs);
    m_chart->setRuns(runs, m_model->metric());
    // Ranked: the pairing B made worst first.
    m_table->sortByColumn(RunDiffModel::WorseBy, Qt::DescendingOrder);
    m_table->resizeColumnsToContents();
    for (const int c : {RunDiffModel::A, RunDiffModel::B})
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c), 210));
    m_table->setColumnWidth(RunDiffModel::Basis, std::min(m_table->columnWidth(RunDiffModel::Basis), 130));
    // Times only where a run has them: otherwise three empty columns push the note away.
    bool timed = false;
    if (runs)
        for (const auto* run : {&runs->a, &runs->b})
            for (const auto& row : run->rows)
                timed = timed || row.time_ms.has_value();
    for (const int c : {RunDiffModel::TimeA, RunDiffModel::TimeB, RunDiffModel::TimeRatio})
        m_table->setColumnHidden(c, !timed);
    m_table->refreshFrozen();
    m_swap->setEnabled(runs != nullptr);
    showSummary();
    // The pairing B made worst, selected: its tensors are what the user looks at first.
    if (m_proxy->rowCount() > 0) {
        m_autoSelecting = true;
        m_table->selectionModel()->setCurrentIndex(m_proxy->index(0, 0), QItemSelectionModel::ClearAndSelect |
                                                                             QItemSelectionModel::Rows);
        m_autoSelecting = false;
    }
}

void RunDiffView::setMessage(const QString& text) {
    m_tensors->clear(QString());
    m_model->setRuns(nullptr);
    m_chart->setRuns(nullptr, m_model->metric());
    m_summary->setText(text);
    m_warning->hide();
    m_swap->setEnabled(false);
}

QMenu* RunDiffView::rowMenu(const QModelIndex& index) {
    if (!m_rowMenu)
        m_rowMenu = new QMenu(this);
    m_rowMenu->clear();
    if (index.isValid() && !m_table->selectionModel()->isRowSelected(index.row(), index.parent()))
        m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
    m_rowMenu->addAction(tr("&Copy row"), this,
                         [this] { QApplication::clipboard()->setText(m_table->selectedRowsText()); });
    m_rowMenu->addSeparator();
    m_rowMenu->addAction(tr("Export A/B as &CSV…"), this,
                         [this] { emit exportRequested(ExportFormat::Csv); });
    m_rowMenu->addAction(tr("Export A/B as &JSON…"), this,
                         [this] { emit exportRequested(ExportFormat::Json); });
    m_rowMenu->addAction(tr("Export A/B as &Markdown…"), this,
                         [this] { emit exportRequested(ExportFormat::Markdown); });
    return m_rowMenu;
}

void RunDiffView::setMetric(Metric metric) {
    m_model->setMetric(metric);
    m_chart->setRuns(m_model->runs(), metric);
    selectMetric(m_metric, metric); // no signal when it is the one shown
    m_proxy->invalidate();
    showSummary();
    emit metricChanged(metric);
}

void RunDiffView::setWorseThan(std::optional<double> margin) {
    if (margin)
        m_margin->setValue(*margin);
    m_worseOnly->setChecked(margin.has_value());
}

void RunDiffView::selectPair(std::optional<std::size_t> pair) {
    m_chart->setSelectedPair(pair);
    m_selecting = true;
    const int row = pair ? m_model->modelRow(*pair) : -1;
    const QModelIndex at = row >= 0 ? m_proxy->mapFromSource(m_model->index(row, 0)) : QModelIndex();
    if (at.isValid()) {
        m_table->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        m_table->scrollTo(at);
    } else {
        m_table->selectionModel()->clearSelection();
    }
    m_selecting = false;
}

void RunDiffView::showSummary() {
    const auto& runs = m_model->runs();
    if (!runs)
        return;
    const auto& m = runs->match;
    QString text =
        tr("<b>A</b> %1 (%2 rows, run %11) &nbsp; <b>B</b> %3 (%4 rows, run %12)<br>Rows matched by %5: %6 "
           "pairs, %7 on A only, %8 on B only. %9 of %10 shown.")
            .arg(QString::fromStdString(runs->a.label).toHtmlEscaped())
            .arg(runs->a.rows.size())
            .arg(QString::fromStdString(runs->b.label).toHtmlEscaped())
            .arg(runs->b.rows.size())
            .arg(m.by_handle ? tr("debug handle (one reference graph)")
                             : tr("op, code location, shape and graph order"))
            .arg(m.matched)
            .arg(m.a_only)
            .arg(m.b_only)
            .arg(m_proxy->rowCount())
            .arg(m_model->rowCount())
            .arg(runs->a.run)
            .arg(runs->b.run);
    if (!runs->a.reference_kind.empty() && runs->a.reference_kind == runs->b.reference_kind)
        text +=
            tr(" Both against the %1.").arg(QString::fromStdString(runs->a.reference_kind).toHtmlEscaped());
    m_summary->setText(text);
    // What makes the difference doubtful, said above the table (issue 56: A and B
    // against different references read as a 100 dB regression).
    QStringList doubts;
    if (const auto why = otherReference(runs->a, runs->b))
        doubts << QStringLiteral("⚠ ") + QString::fromStdString(*why).toHtmlEscaped();
    if (const auto why = otherProgram(runs->a, runs->b))
        doubts << QStringLiteral("⚠ ") + QString::fromStdString(*why).toHtmlEscaped();
    const auto notOne = std::count_if(m.pairs.begin(), m.pairs.end(),
                                      [](const RowPairing& p) { return p.referencesDisagree(); });
    if (notOne > 0)
        doubts << tr("%n pairing(s) compare tensors that are not one (their references differ): not ranked, "
                     "listed last, marked \"not one tensor\".",
                     "", static_cast<int>(notOne));
    m_warning->setText(doubts.join(QStringLiteral("<br>")));
    m_warning->setVisible(!doubts.isEmpty());
}

} // namespace gapscope
