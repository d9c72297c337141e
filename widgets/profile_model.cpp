#include "widgets/profile_model.h"

#include "core/report/text_format.h"
#include "widgets/table_roles.h"

namespace gapscope {

ProfileModel::ProfileModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProfileModel::setSession(std::shared_ptr<const Session> session) {
    beginResetModel();
    m_table = session ? session->profile : nullptr;
    m_rows.clear();
    for (std::size_t b = 0; m_table && b < m_table->blocks.size(); ++b)
        for (std::size_t e = 0; e < m_table->blocks[b].events.size(); ++e)
            if (m_table->blocks[b].events[e].perf)
                m_rows.push_back({b, e});
    endResetModel();
}

QString ProfileModel::summary() const {
    if (!m_table)
        return tr("The ETDump holds no timing for this session (run it with profiling on to see each op's "
                  "time).");
    return tr("%n timed event(s) in %1 block(s), in %2: as ExecuTorch's Inspector tabulates them "
              "(to_dataframe), p10/p50/p90 over each block's runs. Click a header to sort.",
              "", static_cast<int>(m_rows.size()))
        .arg(m_table->blocks.size())
        .arg(QString::fromLatin1(timeScaleName(m_table->target)));
}

int ProfileModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProfileModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileModel::data(const QModelIndex& index, int role) const {
    if (!m_table || !index.isValid() || index.row() >= rowCount())
        return {};
    const Ref& r = m_rows[static_cast<std::size_t>(index.row())];
    const ProfiledBlock& block = m_table->blocks[r.block];
    const ProfiledEvent& e = block.events[r.event];
    const PerfStats& p = *e.perf;
    const double values[] = {p.p10, p.p50, p.p90, p.avg, p.min, p.max};
    const int col = index.column();
    const bool numeric = col >= P10 && col <= Max;
    if (role == SortRole) {
        if (numeric)
            return values[col - P10];
        if (col == Runs)
            return static_cast<qulonglong>(e.raw.size());
        return data(index, Qt::DisplayRole);
    }
    if (role == kCopyTextRole && numeric)
        return QString::fromStdString(number(values[col - P10]));
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Block: return QString::fromStdString(block.name);
        case Event: return QString::fromStdString(e.name);
        case Runs: return static_cast<qulonglong>(e.raw.size());
        case Delegate:
            return e.is_delegated_op
                       ? QString::fromStdString(e.delegate_backend_name.empty() ? std::string("yes")
                                                                                : e.delegate_backend_name)
                       : QString();
        default: return numeric ? QString::fromStdString(shortNumber(values[col - P10])) : QVariant();
        }
    }
    if (role == Qt::TextAlignmentRole && (numeric || col == Runs))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && col == Event)
        return tr("%1\ninstruction %2%3")
            .arg(QString::fromStdString(e.name))
            .arg(e.instruction_id)
            .arg(e.framework ? tr(", the framework's own") : QString());
    return {};
}

QVariant ProfileModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    const QString unit = m_table ? QString::fromLatin1(timeScaleName(m_table->target)) : QStringLiteral("ms");
    switch (section) {
    case Block: return tr("Block");
    case Event: return tr("Event");
    case P10: return tr("p10 %1").arg(unit);
    case P50: return tr("p50 %1").arg(unit);
    case P90: return tr("p90 %1").arg(unit);
    case Avg: return tr("avg %1").arg(unit);
    case Min: return tr("min %1").arg(unit);
    case Max: return tr("max %1").arg(unit);
    case Runs: return tr("Runs");
    case Delegate: return tr("Delegate");
    }
    return {};
}

} // namespace gapscope
