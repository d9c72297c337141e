#include "widgets/frozen_columns_table_view.h"

#include "widgets/bounded_text_delegate.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QScrollBar>
#include <algorithm>

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

FrozenColumnsTableView::FrozenColumnsTableView(QWidget* parent)
    : QTableView(parent), m_frozen(new QTableView(this)) {
    verticalHeader()->hide();
    // Rows as tall as the text needs: the style's default showed 7 A/B rows at 720 px (issue 56).
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    setItemDelegate(new BoundedTextDelegate(this));
    m_frozen->setItemDelegate(new BoundedTextDelegate(m_frozen));
    setWordWrap(false);
    setHorizontalScrollMode(ScrollPerPixel);
    setVerticalScrollMode(ScrollPerPixel);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex index = indexAt(at);
        if (index.isValid())
            emit rowMenuRequested(index, viewport()->mapToGlobal(at));
    });

    m_frozen->setObjectName(QStringLiteral("frozenColumns"));
    m_frozen->setFocusPolicy(Qt::NoFocus); // one tab stop: the table's
    m_frozen->verticalHeader()->hide();
    m_frozen->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_frozen->horizontalHeader()->setStretchLastSection(false);
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollMode(ScrollPerPixel);
    m_frozen->setWordWrap(false);
    m_frozen->setStyleSheet(
        QStringLiteral("QTableView { border: none; border-right: 1px solid palette(mid); }"));
    m_frozen->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_frozen, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        const QModelIndex index = m_frozen->indexAt(at);
        if (index.isValid())
            emit rowMenuRequested(index, m_frozen->viewport()->mapToGlobal(at));
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
                // A new order shows its top: the slowest or worst row, not the old scroll
                // position (issue 56). Queued: the proxy sorts on the same signal.
                QMetaObject::invokeMethod(
                    this, [this] { verticalScrollBar()->setValue(0); }, Qt::QueuedConnection);
            });
}

void FrozenColumnsTableView::setFrozenColumns(std::vector<int> columns) {
    m_frozenColumns = std::move(columns);
    refreshFrozen();
}

bool FrozenColumnsTableView::isFrozen(int column) const {
    return std::find(m_frozenColumns.begin(), m_frozenColumns.end(), column) != m_frozenColumns.end();
}

void FrozenColumnsTableView::setModel(QAbstractItemModel* model) {
    QTableView::setModel(model);
    m_frozen->setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    m_frozen->setSelectionBehavior(selectionBehavior());
    m_frozen->setSelectionMode(selectionMode());
    connect(model, &QAbstractItemModel::modelReset, this, &FrozenColumnsTableView::refreshFrozen);
    refreshFrozen();
}

void FrozenColumnsTableView::refreshFrozen() {
    QAbstractItemModel* m = model();
    if (!m)
        return;
    // The frozen columns first, in their order, whatever order a saved header had.
    QHeaderView* h = horizontalHeader();
    QHeaderView* f = m_frozen->horizontalHeader();
    for (int k = 0; k < static_cast<int>(m_frozenColumns.size()); ++k) {
        const int col = m_frozenColumns[static_cast<std::size_t>(k)];
        if (col >= m->columnCount())
            continue;
        if (h->visualIndex(col) != k)
            h->moveSection(h->visualIndex(col), k);
        if (f->visualIndex(col) != k)
            f->moveSection(f->visualIndex(col), k);
    }
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
    m_frozen->setVisible(!m_frozenColumns.empty());
    updateFrozenGeometry();
}

int FrozenColumnsTableView::frozenWidth() const {
    int width = 0;
    for (const int col : m_frozenColumns)
        width += columnWidth(col);
    return width;
}

void FrozenColumnsTableView::updateFrozenGeometry() {
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), frozenWidth(),
                          viewport()->height() + horizontalHeader()->height());
}

void FrozenColumnsTableView::resizeEvent(QResizeEvent* event) {
    QTableView::resizeEvent(event);
    updateFrozenGeometry();
}

void FrozenColumnsTableView::updateGeometries() {
    QTableView::updateGeometries();
    updateFrozenGeometry();
}

QModelIndex FrozenColumnsTableView::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) {
    const QModelIndex current = QTableView::moveCursor(action, modifiers);
    // Moving left onto a column under the frozen ones: scroll it out from under them.
    if (action == MoveLeft && current.isValid() && !isFrozen(current.column()) &&
        visualRect(current).topLeft().x() < frozenWidth()) {
        const int by = visualRect(current).topLeft().x() - frozenWidth();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() + by);
    }
    return current;
}

void FrozenColumnsTableView::scrollTo(const QModelIndex& index, ScrollHint hint) {
    // A frozen column is always in view: only the rows scroll to it, the
    // columns the user scrolled to stay where they are.
    const int sideways = horizontalScrollBar()->value();
    QTableView::scrollTo(index, hint);
    if (index.isValid() && isFrozen(index.column()))
        horizontalScrollBar()->setValue(sideways);
}

QString FrozenColumnsTableView::selectedRowsText() const {
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
        for (int col : columns) {
            const QModelIndex at = m->index(row, col);
            const QVariant exact = at.data(kCopyTextRole);
            cells << tsvCell(exact.isValid() ? exact.toString() : at.data().toString());
        }
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void FrozenColumnsTableView::keyPressEvent(QKeyEvent* event) {
    if (event->matches(QKeySequence::Copy)) {
        QApplication::clipboard()->setText(selectedRowsText());
        event->accept();
        return;
    }
    QTableView::keyPressEvent(event);
}

void StayOpenMenu::mouseReleaseEvent(QMouseEvent* event) {
    QAction* a = activeAction();
    if (a && a->isEnabled() && a->isCheckable()) {
        a->trigger(); // toggled, and the menu stays for the next choice
        return;
    }
    QMenu::mouseReleaseEvent(event);
}

void StayOpenMenu::keyPressEvent(QKeyEvent* event) {
    QAction* a = activeAction();
    if (a && a->isEnabled() && a->isCheckable() &&
        (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter || event->key() == Qt::Key_Space)) {
        a->trigger();
        return;
    }
    QMenu::keyPressEvent(event);
}

} // namespace gapscope
