#include "widgets/op_filter_proxy.h"

#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "widgets/op_table_model.h"

namespace gapscope {

OpFilterProxy::OpFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(OpTableModel::SortRole);
    setDynamicSortFilter(true);
}

void OpFilterProxy::setText(const QString& text) {
    m_text = text.trimmed();
    invalidateFilter();
}

void OpFilterProxy::setThreshold(std::optional<MetricThreshold> threshold) {
    m_threshold = threshold;
    invalidateFilter();
}

void OpFilterProxy::setPinnedRow(std::optional<std::size_t> row) {
    if (row == m_pinned)
        return;
    m_pinned = row;
    invalidateFilter();
}

bool OpFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const auto* model = qobject_cast<const OpTableModel*>(sourceModel());
    if (!model)
        return true;
    const ComparisonRow* row = model->comparisonRow(sourceRow);
    if (!row || (m_pinned && row->index == *m_pinned))
        return true;
    if (!m_text.isEmpty()) {
        bool hit = false;
        for (int col : {int(OpTableModel::Handles), int(OpTableModel::AotOps), int(OpTableModel::RuntimeOps),
                        OpTableModel::column(OpTableModel::Tail::Status)})
            hit = hit || model->index(sourceRow, col, sourceParent)
                             .data()
                             .toString()
                             .contains(m_text, Qt::CaseInsensitive);
        if (!hit)
            return false;
    }
    if (m_threshold && !crossesThreshold(*row, *m_threshold))
        return false;
    return true;
}

bool OpFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const auto* model = qobject_cast<const OpTableModel*>(sourceModel());
    const int column = left.column();
    if (!model || column != right.column() || !OpTableModel::numericColumn(column))
        return QSortFilterProxyModel::lessThan(left, right);
    if (m_keysColumn != column || m_keysGeneration != model->generation() ||
        m_keys.size() != static_cast<std::size_t>(model->rowCount())) {
        m_keys.resize(static_cast<std::size_t>(model->rowCount()));
        for (int row = 0; row < model->rowCount(); ++row)
            m_keys[static_cast<std::size_t>(row)] = model->sortKey(row, column).value_or(0);
        m_keysColumn = column;
        m_keysGeneration = model->generation();
    }
    // QVariant's order on doubles: plain <, NaN never among the keys.
    return m_keys[static_cast<std::size_t>(left.row())] < m_keys[static_cast<std::size_t>(right.row())];
}

} // namespace gapscope
