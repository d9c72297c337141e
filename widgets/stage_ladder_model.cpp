#include "widgets/stage_ladder_model.h"

#include "widgets/table_roles.h"

#include <QBrush>
#include <QColor>
#include <cmath>
#include <limits>

namespace gapscope {

QString ladderCellText(const LadderCell& cell) {
    if (!cell.snr)
        return QStringLiteral("—");
    if (std::isinf(*cell.snr))
        return *cell.snr > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(*cell.snr, 'f', 1);
}

void StageLadderModel::setLadder(std::shared_ptr<const StageLadder> ladder) {
    beginResetModel();
    m_ladder = std::move(ladder);
    endResetModel();
}

std::size_t StageLadderModel::steps() const {
    return m_ladder ? m_ladder->step_labels.size() : 0;
}

int StageLadderModel::lostMostColumn() const {
    return 1 + static_cast<int>(steps());
}

int StageLadderModel::shareColumn() const {
    return lostMostColumn() + 1;
}

int StageLadderModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_ladder ? 0 : static_cast<int>(m_ladder->rows.size());
}

int StageLadderModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_ladder ? 0 : shareColumn() + 1;
}

QVariant StageLadderModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || !m_ladder)
        return {};
    if (role == Qt::ToolTipRole && section > 0 && section < lostMostColumn()) {
        const auto s = static_cast<std::size_t>(section);
        return tr("SNR (dB) of %1 against %2: the gap this step adds")
            .arg(QString::fromStdString(ladderStageLabel(m_ladder->stages[s])),
                 QString::fromStdString(ladderStageLabel(m_ladder->stages[s - 1])));
    }
    if (role != Qt::DisplayRole)
        return {};
    if (section == kOpColumn)
        return tr("Op");
    if (section == lostMostColumn())
        return tr("Lost most at");
    if (section == shareColumn())
        return tr("Share");
    return QString::fromStdString(m_ladder->step_labels[static_cast<std::size_t>(section - 1)]);
}

QVariant StageLadderModel::data(const QModelIndex& index, int role) const {
    if (!m_ladder || !index.isValid() || index.row() >= rowCount())
        return {};
    const LadderRow& row = m_ladder->rows[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    const bool stepColumn = col > 0 && col < lostMostColumn();
    const LadderCell* cell = stepColumn ? &row.steps[static_cast<std::size_t>(col - 1)] : nullptr;
    const auto worstShare = row.worst_step ? row.share[*row.worst_step] : std::nullopt;
    switch (role) {
    case Qt::DisplayRole:
        if (col == kOpColumn)
            return QString::fromStdString(row.name);
        if (cell)
            return ladderCellText(*cell);
        if (col == lostMostColumn())
            return row.worst_step ? QString::fromStdString(m_ladder->step_labels[*row.worst_step]) : tr("—");
        if (col == shareColumn())
            return worstShare ? QStringLiteral("%1%").arg(std::lround(100 * *worstShare)) : tr("—");
        return {};
    case SortRole:
        if (col == kOpColumn)
            return row.output ? static_cast<double>(m_ladder->rows.size() + row.row)
                              : static_cast<double>(row.row);
        if (cell) // the lowest SNR first in ascending order; no number last
            return cell->snr ? *cell->snr : std::numeric_limits<double>::infinity();
        if (col == lostMostColumn())
            return row.worst_step ? static_cast<double>(*row.worst_step)
                                  : std::numeric_limits<double>::infinity();
        if (col == shareColumn())
            return worstShare ? *worstShare : -1.0;
        return {};
    case RowIndexRole: return row.output ? -1 : static_cast<int>(row.row);
    case kCopyTextRole:
        if (cell && cell->snr)
            return QString::number(*cell->snr, 'g', 17);
        return {};
    case Qt::ToolTipRole:
        if (cell && !cell->snr && !cell->problem.empty())
            return QString::fromStdString(cell->problem);
        if (col == lostMostColumn() && !row.worst_step)
            return tr("No step loses more than float rounding (every step at %1 dB or more)")
                .arg(kLadderLosslessDb, 0, 'f', 0);
        return {};
    case Qt::BackgroundRole:
        if (cell && row.worst_step && static_cast<std::size_t>(col - 1) == *row.worst_step)
            return QBrush(QColor(255, 214, 153)); // the step that loses the most
        return {};
    case Qt::TextAlignmentRole:
        if (col != kOpColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default: return {};
    }
}

} // namespace gapscope
