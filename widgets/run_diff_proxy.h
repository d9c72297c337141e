#pragma once

#include <QSortFilterProxyModel>
#include <optional>

namespace gapscope {

// Sorts the A/B table on numbers (RunDiffModel::SortRole, a missing value
// last) and keeps the pairings B made worse by more than a margin, and, unless
// asked to hide them, the rows of one run only.
class RunDiffProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunDiffProxy(QObject* parent = nullptr);

    // Only pairings worse by more than `margin` (in the metric's unit); nullopt: all.
    void setWorseThan(std::optional<double> margin);
    void setShowUnpaired(bool show);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    bool numberLess(double a, double b) const;

    std::optional<double> m_margin;
    bool m_showUnpaired = true;
};

} // namespace gapscope
