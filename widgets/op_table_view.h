#pragma once

#include "widgets/frozen_columns_table_view.h"

#include <cstddef>

class QMenu;

namespace gapscope {

// The op table's view: the # and AOT ops columns stay frozen at the left while
// the metrics scroll sideways (FrozenColumnsTableView); the header's context
// menu chooses the other columns (hidden ones are kept with the header's state)
// and stays open for several; Ctrl+C copies the selected rows as tab-separated
// text with the header; a row's context menu copies, shows the op in the graph
// or exports its figure.
class OpTableView : public FrozenColumnsTableView {
    Q_OBJECT
public:
    explicit OpTableView(QWidget* parent = nullptr);

    // The frozen columns (logical): never hidden, always first.
    static bool isFrozenColumn(int column);
    // Columns sized for a new session's rows: `savedHeader` (the user's widths,
    // order and hidden columns) when given, else to their contents within
    // bounds, with the columns most sessions do not need hidden; "#" fits the
    // largest of `rows` indices with both marks.
    void sizeColumns(const QByteArray& savedHeader, int rows);
    void fitIndexColumn(int rows);
    // The header's column chooser and a row's menu, as they would open (tests).
    QMenu* columnMenu();
    QMenu* rowMenu(const QModelIndex& index);

signals:
    // The row (OpTableModel::RowIndexRole) to show in the graph, or whose figure to export.
    void showInGraphRequested(std::size_t row);
    void exportOpRequested(std::size_t row);
    // The user changed the columns (shown, order, width): saved at once, so a
    // killed process keeps them (issue 56).
    void columnsChanged();

private:
    QMenu* m_columnMenu = nullptr;
    QMenu* m_rowMenu = nullptr;
    int m_sortSection = 0; // the column the table is sorted on
};

} // namespace gapscope
