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

namespace {

QString tsvCell(QString text) {
    // A tab or a line break inside a cell would start another cell or row.
    text.replace(QLatin1Char('\t'), QLatin1Char(' '));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    text.replace(QLatin1Char('\r'), QLatin1Char(' '));
    return text;
}

} // namespace

OpTableView::OpTableView(QWidget* parent) : QTableView(parent), m_frozen(new QTableView(this)) {
    verticalHeader()->hide();
    setItemDelegate(new BoundedTextDelegate(this));
    m_frozen->setItemDelegate(new BoundedTextDelegate(m_frozen));
    setAlternatingRowColors(true);
    setWordWrap(false);
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
    setHorizontalScrollMode(ScrollPerPixel);
    setVerticalScrollMode(ScrollPerPixel);
    horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
            [this](const QPoint& at) { columnMenu()->popup(horizontalHeader()->mapToGlobal(at)); });
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex index = indexAt(at);
        if (index.isValid())
            rowMenu(index)->popup(viewport()->mapToGlobal(at));
    });

    m_frozen->setObjectName(QStringLiteral("frozenColumns"));
    m_frozen->setFocusPolicy(Qt::NoFocus); // one tab stop: the table's
    m_frozen->verticalHeader()->hide();
    m_frozen->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_frozen->horizontalHeader()->setStretchLastSection(false);
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollMode(ScrollPerPixel);
    m_frozen->setSelectionBehavior(SelectRows);
    m_frozen->setSelectionMode(ExtendedSelection);
    m_frozen->setWordWrap(false);
    m_frozen->setStyleSheet(
        QStringLiteral("QTableView { border: none; border-right: 1px solid palette(mid); }"));
    m_frozen->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_frozen, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex index = m_frozen->indexAt(at);
        if (index.isValid())
            rowMenu(index)->popup(m_frozen->viewport()->mapToGlobal(at));
    });
    viewport()->stackUnder(m_frozen);

    // One scroll position and one set of widths and heights for both.
    connect(m_frozen->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(verticalScrollBar(), &QAbstractSlider::valueChanged, m_frozen->verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int section, int, int size) {
        if (isFrozen(section)) {
            m_frozen->setColumnWidth(section, size);
            updateFrozenGeometry();
        }
    });
    connect(verticalHeader(), &QHeaderView::sectionResized, this,
            [this](int section, int, int size) { m_frozen->setRowHeight(section, size); });
    // Sorting from the frozen header sorts the table (the indicator follows).
    m_frozen->horizontalHeader()->setSectionsClickable(true);
    connect(m_frozen->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int section) {
        QHeaderView* h = horizontalHeader();
        const bool flip = h->sortIndicatorSection() == section;
        sortByColumn(section, flip && h->sortIndicatorOrder() == Qt::AscendingOrder ? Qt::DescendingOrder
                                                                                    : Qt::AscendingOrder);
    });
    connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
            [this](int section, Qt::SortOrder order) {
                m_frozen->horizontalHeader()->setSortIndicatorShown(isFrozen(section));
                m_frozen->horizontalHeader()->setSortIndicator(section, order);
            });
}

bool OpTableView::isFrozen(int column) {
    return column == OpTableModel::Index || column == OpTableModel::AotOps;
}

void OpTableView::setModel(QAbstractItemModel* model) {
    QTableView::setModel(model);
    m_frozen->setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    connect(model, &QAbstractItemModel::modelReset, this, &OpTableView::refreshFrozen);
    refreshFrozen();
}

void OpTableView::refreshFrozen() {
    QAbstractItemModel* m = model();
    if (!m)
        return;
    // The op's index and name first, whatever order a saved header had.
    QHeaderView* h = horizontalHeader();
    if (h->visualIndex(OpTableModel::Index) != 0)
        h->moveSection(h->visualIndex(OpTableModel::Index), 0);
    if (h->visualIndex(OpTableModel::AotOps) != 1)
        h->moveSection(h->visualIndex(OpTableModel::AotOps), 1);
    QHeaderView* f = m_frozen->horizontalHeader();
    if (f->visualIndex(OpTableModel::AotOps) != 1 && OpTableModel::AotOps < m->columnCount())
        f->moveSection(f->visualIndex(OpTableModel::AotOps), 1);
    for (int col = 0; col < m->columnCount(); ++col) {
        if (isFrozen(col))
            setColumnHidden(col, false);
        m_frozen->setColumnHidden(col, !isFrozen(col));
        if (isFrozen(col))
            m_frozen->setColumnWidth(col, columnWidth(col));
    }
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
    for (int row = 0; row < m->rowCount(); ++row)
        if (rowHeight(row) != verticalHeader()->defaultSectionSize())
            m_frozen->setRowHeight(row, rowHeight(row));
    m_frozen->verticalHeader()->setDefaultSectionSize(verticalHeader()->defaultSectionSize());
    updateFrozenGeometry();
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

int OpTableView::frozenWidth() const {
    return columnWidth(OpTableModel::Index) + columnWidth(OpTableModel::AotOps);
}

void OpTableView::updateFrozenGeometry() {
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), frozenWidth(),
                          viewport()->height() + horizontalHeader()->height());
}

void OpTableView::resizeEvent(QResizeEvent* event) {
    QTableView::resizeEvent(event);
    updateFrozenGeometry();
}

void OpTableView::updateGeometries() {
    QTableView::updateGeometries();
    updateFrozenGeometry();
}

QModelIndex OpTableView::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) {
    const QModelIndex current = QTableView::moveCursor(action, modifiers);
    // Moving left onto a column under the frozen ones: scroll it out from under them.
    if (action == MoveLeft && current.isValid() && !isFrozen(current.column()) &&
        visualRect(current).topLeft().x() < frozenWidth()) {
        const int by = visualRect(current).topLeft().x() - frozenWidth();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + by);
    }
    return current;
}

void OpTableView::scrollTo(const QModelIndex& index, ScrollHint hint) {
    // A frozen column is always in view: only the rows scroll to it, the
    // metrics the user scrolled to stay where they are.
    const int sideways = horizontalScrollBar()->value();
    QTableView::scrollTo(index, hint);
    if (index.isValid() && isFrozen(index.column()))
        horizontalScrollBar()->setValue(sideways);
}

QString OpTableView::selectedRowsText() const {
    const QAbstractItemModel* m = model();
    if (!m || !selectionModel())
        return {};
    QList<int> rows;
    for (const QModelIndex& index : selectionModel()->selectedRows())
        rows << index.row();
    if (rows.isEmpty() && currentIndex().isValid())
        rows << currentIndex().row();
    std::sort(rows.begin(), rows.end());
    QList<int> columns; // as shown: visual order, hidden ones left out
    for (int visual = 0; visual < horizontalHeader()->count(); ++visual) {
        const int logical = horizontalHeader()->logicalIndex(visual);
        if (!isColumnHidden(logical))
            columns << logical;
    }
    QStringList lines;
    QStringList header;
    for (int col : columns)
        header << tsvCell(m->headerData(col, Qt::Horizontal).toString());
    lines << header.join(QLatin1Char('\t'));
    for (int row : rows) {
        QStringList cells;
        for (int col : columns)
            cells << tsvCell(m->index(row, col).data().toString());
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void OpTableView::keyPressEvent(QKeyEvent* event) {
    if (event->matches(QKeySequence::Copy)) {
        QApplication::clipboard()->setText(selectedRowsText());
        event->accept();
        return;
    }
    QTableView::keyPressEvent(event);
}

QMenu* OpTableView::columnMenu() {
    if (!m_columnMenu)
        m_columnMenu = new QMenu(this);
    m_columnMenu->clear();
    QAbstractItemModel* m = model();
    for (int col = 0; m && col < m->columnCount(); ++col) {
        QAction* a = m_columnMenu->addAction(m->headerData(col, Qt::Horizontal).toString());
        a->setCheckable(true);
        a->setChecked(!isColumnHidden(col));
        a->setEnabled(!isFrozen(col)); // the op's index and name always show
        connect(a, &QAction::toggled, this, [this, col](bool shown) { setColumnHidden(col, !shown); });
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
