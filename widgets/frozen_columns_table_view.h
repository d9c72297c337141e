#pragma once

#include "widgets/table_roles.h"

#include <QMenu>
#include <QTableView>
#include <vector>

namespace gapscope {

// A table whose first columns (the row's identity: an op's index and name, an
// A/B pairing's A row) stay at the left while the others scroll sideways: a
// second view over the same model and selection, as Qt's frozen-column
// example. Ctrl+C copies the selected rows as tab-separated text with the
// header, at full precision (kCopyTextRole). A sort shows the top of the table.
// The op table and the A/B table are both this.
class FrozenColumnsTableView : public QTableView {
    Q_OBJECT
public:
    explicit FrozenColumnsTableView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model) override;
    // The frozen columns (logical), shown first in this order and never hidden.
    void setFrozenColumns(std::vector<int> columns);
    bool isFrozen(int column) const;
    // After the header changed wholesale (restoreState, resizeColumnsToContents):
    // the frozen columns first, and the overlay's widths and place again.
    void refreshFrozen();
    QTableView* frozenView() const { return m_frozen; }
    // The selected rows (else the current one), in the order shown, as TSV: a
    // header line of the columns shown, then one line per row.
    QString selectedRowsText() const;
    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;

signals:
    // A row's context menu was asked for, on the table or its frozen columns.
    void rowMenuRequested(const QModelIndex& index, const QPoint& global);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void updateGeometries() override;
    QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;

private:
    void updateFrozenGeometry();
    int frozenWidth() const;

    QTableView* m_frozen;
    std::vector<int> m_frozenColumns;
};

// A menu whose checkable entries toggle without closing it (a column chooser:
// issue 56, it closed after each toggle).
class StayOpenMenu : public QMenu {
    Q_OBJECT
public:
    using QMenu::QMenu;

protected:
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
};

} // namespace gapscope
