#pragma once

#include "core/compare/stage_ladder.h"

#include <QAbstractTableModel>
#include <memory>

namespace gapscope {

// The stage ladder (issue 59), one row per op and program output: the op, the
// SNR each step adds (one column per step), the step that loses the most and
// its share of the noise. Reads what core computed (StageLadder); derives
// nothing. Numbers sort by value through SortRole (no number sorts last in the
// worst-first order).
class StageLadderModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        SortRole = Qt::UserRole + 1,
        RowIndexRole
    }; // RowIndexRole: the Comparison row, -1 for an output
    static constexpr int kOpColumn = 0;

    using QAbstractTableModel::QAbstractTableModel;
    void setLadder(std::shared_ptr<const StageLadder> ladder);
    const std::shared_ptr<const StageLadder>& ladder() const { return m_ladder; }
    // Columns: the op, one per step, "lost most at", its share.
    int lostMostColumn() const;
    int shareColumn() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::size_t steps() const;
    std::shared_ptr<const StageLadder> m_ladder;
};

// "14.5", "inf", or "—" (and the reason in the tooltip): one cell's text.
QString ladderCellText(const LadderCell& cell);

} // namespace gapscope
