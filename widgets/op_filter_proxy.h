#pragma once

#include "core/compare/metric_catalog.h"

#include <QSortFilterProxyModel>
#include <optional>
#include <vector>

namespace gapscope {

// Sorts OpTableModel on numbers (SortRole) and filters by text (ops, handles)
// and by "gap above threshold" on one metric.
class OpFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OpFilterProxy(QObject* parent = nullptr);

    void setText(const QString& text);
    // Keep only rows past `threshold` (crossesThreshold); nullopt removes the filter.
    void setThreshold(std::optional<MetricThreshold> threshold);
    // A row (comparison row index) shown whatever the filters say: the op
    // selected in the chart, the graph or the steps view while a filter hides it,
    // so that the table always shows the selection.
    void setPinnedRow(std::optional<std::size_t> row);
    std::optional<std::size_t> pinnedRow() const { return m_pinned; }
    bool filtering() const { return !m_text.isEmpty() || m_threshold.has_value(); }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    // Numeric columns compare cached keys: a sort asks for two keys per
    // comparison, n log n times, and a QVariant per key cost most of it.
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    QString m_text;
    std::optional<MetricThreshold> m_threshold;
    std::optional<std::size_t> m_pinned;
    // OpTableModel::sortKey of every row for one column, under one generation.
    mutable std::vector<double> m_keys;
    mutable int m_keysColumn = -1;
    mutable quint64 m_keysGeneration = 0;
};

} // namespace gapscope
