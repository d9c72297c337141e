#include "widgets/coverage_model.h"

#include <QStringList>

namespace gapscope {

CoverageModel::CoverageModel(QObject* parent) : QAbstractTableModel(parent) {}

void CoverageModel::setSession(std::shared_ptr<const Session> session) {
    beginResetModel();
    m_session = std::move(session);
    endResetModel();
}

int CoverageModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_session || !m_session->comparison)
        return 0;
    return static_cast<int>(m_session->comparison->coverage.size());
}

int CoverageModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CoverageModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Kind: return QStringLiteral("Kind");
    case What: return QStringLiteral("Op / event");
    case Handles: return QStringLiteral("Debug handles");
    case Reason: return QStringLiteral("Why");
    default: return {};
    }
}

QVariant CoverageModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || (role != Qt::DisplayRole && role != Qt::ToolTipRole) || !m_session ||
        !m_session->comparison)
        return {};
    const auto& items = m_session->comparison->coverage;
    if (index.row() < 0 || static_cast<std::size_t>(index.row()) >= items.size())
        return {};
    const auto& item = items[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
    case Kind: return QString::fromStdString(item.kind);
    case What: return QString::fromStdString(item.what);
    case Handles: {
        QStringList l;
        for (auto h : item.handles)
            l << QString::number(h);
        return l.join(QLatin1Char(','));
    }
    case Reason: return QString::fromStdString(item.reason);
    default: return {};
    }
}

} // namespace gapscope
