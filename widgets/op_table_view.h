#pragma once

#include <QTableView>
#include <cstddef>

class QMenu;

namespace gapscope {

// The op table's view: the # and AOT ops columns stay frozen at the left while
// the metrics scroll sideways (a second view over the same model and selection,
// as Qt's frozen-column example); the header's context menu chooses the other
// columns (hidden ones are kept with the header's state); Ctrl+C copies the
// selected rows as tab-separated text with the header; a row's context menu
// copies, shows the op in the graph or exports its figure.
class OpTableView : public QTableView {
    Q_OBJECT
public:
    explicit OpTableView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model) override;
    // The frozen columns (logical): never hidden, always first.
    static bool isFrozen(int column);
    // After the header changed wholesale (restoreState, resizeColumnsToContents):
    // the frozen columns first, and the overlay's widths and place again.
    void refreshFrozen();
    // Columns sized for a new session's rows: `savedHeader` (the user's widths,
    // order and hidden columns) when given, else to their contents within
    // bounds; "#" fits the largest of `rows` indices with both marks.
    void sizeColumns(const QByteArray& savedHeader, int rows);
    void fitIndexColumn(int rows);
    QTableView* frozenView() const { return m_frozen; }
    // The selected rows, in the order shown, as TSV: a header line of the
    // columns shown, then one line per row (what Ctrl+C puts on the clipboard).
    QString selectedRowsText() const;
    // The header's column chooser and a row's menu, as they would open (tests).
    QMenu* columnMenu();
    QMenu* rowMenu(const QModelIndex& index);
    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;

signals:
    // The row (OpTableModel::RowIndexRole) to show in the graph, or whose figure to export.
    void showInGraphRequested(std::size_t row);
    void exportOpRequested(std::size_t row);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void updateGeometries() override;
    QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;

private:
    void updateFrozenGeometry();
    int frozenWidth() const;

    QTableView* m_frozen;
    QMenu* m_columnMenu = nullptr;
    QMenu* m_rowMenu = nullptr;
    int m_sortSection = 0; // the column the table is sorted on
};

} // namespace gapscope
