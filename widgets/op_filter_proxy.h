#pragma once

#include <QSortFilterProxyModel>
#include <optional>

namespace gapscope {

// Sorts OpTableModel on numbers (SortRole) and filters by text (ops, handles)
// and by "gap above threshold" on one metric.
class OpFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OpFilterProxy(QObject* parent = nullptr);

    void setText(const QString& text);
    // Keep only rows whose `metric` is worse than `value`; nullopt removes it.
    void setThreshold(const QString& metric, std::optional<double> value);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    QString m_metric;
    std::optional<double> m_threshold;
};

} // namespace gapscope
