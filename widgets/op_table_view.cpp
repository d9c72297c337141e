#include "widgets/op_table_view.h"

#include "core/compare/metric_catalog.h"
#include "widgets/bounded_text_delegate.h"
#include "widgets/op_table_model.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>
#include <QScrollBar>
#include <algorithm>
#include <utility>

namespace gapscope {

OpTableView::OpTableView(QWidget* parent) : FrozenColumnsTableView(parent) {
    setFrozenColumns({OpTableModel::Index, OpTableModel::AotOps});
    setAlternatingRowColors(true);
    // One tab stop: Tab leaves the table for the tensor panel and the chart
    // (arrows move within it), and the focused view shows a frame.
    setTabKeyNavigation(false);
    setStyleSheet(QStringLiteral("QTableView:focus { border: 2px solid palette(highlight); }"));
    horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    horizontalHeader()->setStretchLastSection(true);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    setSortingEnabled(true);
    sortByColumn(OpTableModel::Index, Qt::AscendingOrder);
    // A first click on a metric's header sorts the worst ops first, whichever
    // way the metric runs (MSE descending, SNR ascending); a second click flips.
    connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
            [this](int section, Qt::SortOrder order) {
                const int previous = std::exchange(m_sortSection, section);
                if (section == previous)
                    return;
                const auto metric = OpTableModel::metricOf(section);
                const auto tail = OpTableModel::tailOf(section);
                if (!metric && (!tail || tail == OpTableModel::Tail::Status))
                    return; // the slowest, the most gain, the most added: first
                const Qt::SortOrder worstFirst =
                    !metric || metricInfo(*metric).higher_is_worse ? Qt::DescendingOrder : Qt::AscendingOrder;
                if (order != worstFirst)
                    sortByColumn(section, worstFirst);
            });
    setSelectionBehavior(SelectRows);
    setSelectionMode(ExtendedSelection); // several rows for Ctrl+C; the current row is the op shown
    frozenView()->setSelectionBehavior(SelectRows);
    frozenView()->setSelectionMode(ExtendedSelection);
    horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
            [this](const QPoint& at) { columnMenu()->popup(horizontalHeader()->mapToGlobal(at)); });
    connect(this, &FrozenColumnsTableView::rowMenuRequested, this,
            [this](const QModelIndex& index, const QPoint& global) { rowMenu(index)->popup(global); });
    // Every change of the columns is the user's, and kept at once.
    for (const auto signal : {&QHeaderView::sectionMoved, &QHeaderView::sectionResized})
        connect(horizontalHeader(), signal, this, [this] {
            if (model() && model()->rowCount() > 0)
                emit columnsChanged();
        });
}

bool OpTableView::isFrozenColumn(int column) {
    return column == OpTableModel::Index || column == OpTableModel::AotOps;
}

void OpTableView::sizeColumns(const QByteArray& savedHeader, int rows) {
    if (!savedHeader.isEmpty()) {
        horizontalHeader()->restoreState(savedHeader);
        // Widths saved on another session may not fit this one's ops: the op
        // columns stay readable and "#" fits its largest index.
        for (int col : {OpTableModel::AotOps, OpTableModel::RuntimeOps})
            setColumnWidth(col, std::max(columnWidth(col), 140));
    } else {
        resizeColumnsToContents();
        // The columns most sessions need, so Time and Status are in view at
        // 1366 px (issue 56: all 19 showed); the chooser shows the rest.
        for (const int col :
             {int(OpTableModel::RuntimeOps), int(OpTableModel::Dtype), OpTableModel::column(Metric::L1),
              OpTableModel::column(OpTableModel::Tail::Share),
              OpTableModel::column(OpTableModel::Tail::Gain)})
            if (col >= 0)
                setColumnHidden(col, true);
        // Fused groups list many ops: keep the op columns readable, the numbers visible.
        for (int col : {OpTableModel::AotOps, OpTableModel::RuntimeOps})
            setColumnWidth(col, std::min(columnWidth(col), 280));
        setColumnWidth(OpTableModel::Handles, std::min(columnWidth(OpTableModel::Handles), 120));
        // Metric cells hold "…" until measured: leave room for the numbers.
        for (int col = OpTableModel::FirstMetric; col <= OpTableModel::column(OpTableModel::Tail::Added);
             ++col)
            setColumnWidth(col, std::max(columnWidth(col), 72));
    }
    fitIndexColumn(rows);
    refreshFrozen();
}

void OpTableView::fitIndexColumn(int rows) {
    // Sized for the largest index with both marks, not for the rows in view
    // (resizeColumnToContents measures only those: "#" truncated past 1000).
    const int widest =
        fontMetrics().horizontalAdvance(QString::number(std::max(rows - 1, 0)) + QStringLiteral(" ⚑▲"));
    setColumnWidth(OpTableModel::Index, std::max(columnWidth(OpTableModel::Index), widest + 24));
}

QMenu* OpTableView::columnMenu() {
    if (!m_columnMenu)
        m_columnMenu = new StayOpenMenu(this);
    m_columnMenu->clear();
    QAbstractItemModel* m = model();
    for (int col = 0; m && col < m->columnCount(); ++col) {
        QAction* a = m_columnMenu->addAction(m->headerData(col, Qt::Horizontal).toString());
        a->setCheckable(true);
        a->setChecked(!isColumnHidden(col));
        a->setEnabled(!isFrozen(col)); // the op's index and name always show
        connect(a, &QAction::toggled, this, [this, col](bool shown) {
            setColumnHidden(col, !shown);
            emit columnsChanged();
        });
    }
    return m_columnMenu;
}

QMenu* OpTableView::rowMenu(const QModelIndex& index) {
    if (!m_rowMenu)
        m_rowMenu = new QMenu(this);
    m_rowMenu->clear();
    // The clicked row joins the selection if it is not in it (as file managers do).
    if (!selectionModel()->isRowSelected(index.row(), index.parent()))
        selectionModel()->setCurrentIndex(index,
                                          QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const auto row = static_cast<std::size_t>(index.data(OpTableModel::RowIndexRole).toULongLong());
    const int selected = std::max<int>(1, static_cast<int>(selectionModel()->selectedRows().size()));
    m_rowMenu->addAction(selected == 1 ? tr("&Copy row") : tr("&Copy %1 rows").arg(selected), this,
                         [this] { QApplication::clipboard()->setText(selectedRowsText()); });
    m_rowMenu->addAction(tr("Show in &graph"), this, [this, row] { emit showInGraphRequested(row); });
    m_rowMenu->addAction(tr("&Export this op's figure…"), this, [this, row] { emit exportOpRequested(row); });
    return m_rowMenu;
}

} // namespace gapscope
