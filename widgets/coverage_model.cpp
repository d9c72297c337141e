#include "widgets/coverage_model.h"

#include <QStringList>
#include <algorithm>

namespace gapscope {

CoverageModel::CoverageModel(QObject* parent) : QAbstractTableModel(parent) {}

void CoverageModel::setSession(std::shared_ptr<const Session> session) {
    beginResetModel();
    m_session = std::move(session);
    indexTiming();
    endResetModel();
}

void CoverageModel::indexTiming() {
    m_untimedRows.clear();
    const auto* l = m_session ? m_session->latency.get() : nullptr;
    for (std::size_t i = 0; l && i < l->rows.size(); ++i)
        if (!l->rows[i].p50)
            m_untimedRows.push_back(i);
    m_timedOnly.clear();
    m_timeOfItem.clear();
    if (!m_session || !m_session->comparison)
        return;
    const auto& coverage = m_session->comparison->coverage;
    m_timeOfItem.assign(coverage.size(), std::nullopt);
    if (!l)
        return;
    // Occurrence k of a name in the timing is occurrence k of it in the coverage
    // (one delegate's "Transpose (ND, X32) #1" per call).
    std::map<std::string, std::vector<std::size_t>> timed;
    for (std::size_t i = l->timed_without_numerics.size(); i-- > 0;)
        timed[l->timed_without_numerics[i].name].push_back(i);
    for (std::size_t k = 0; k < coverage.size(); ++k)
        if (auto it = timed.find(coverage[k].what); it != timed.end() && !it->second.empty()) {
            m_timeOfItem[k] = it->second.back();
            it->second.pop_back();
        }
    for (const auto& [name, left] : timed)
        m_timedOnly.insert(m_timedOnly.end(), left.begin(), left.end());
    std::sort(m_timedOnly.begin(), m_timedOnly.end());
}

int CoverageModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_session || !m_session->comparison)
        return 0;
    const auto* l = m_session->latency.get();
    (void)l;
    return static_cast<int>(m_session->comparison->coverage.size() + m_untimedRows.size() +
                            m_timedOnly.size());
}

namespace {
QString handlesText(const std::vector<std::int64_t>& handles) {
    QStringList l;
    for (auto h : handles)
        l << QString::number(h);
    return l.join(QLatin1Char(','));
}
} // namespace

CoverageModel::Item CoverageModel::item(std::size_t row) const {
    const auto& c = *m_session->comparison;
    if (row < c.coverage.size()) {
        const auto& i = c.coverage[row];
        QString reason = QString::fromStdString(i.reason);
        if (const auto t = m_timeOfItem[row]) // its time, here once
            reason += QStringLiteral("; %1 %2 median (the Profile tab lists every event's)")
                          .arg(m_session->latency->timed_without_numerics[*t].p50, 0, 'g', 3)
                          .arg(QString::fromLatin1(timeScaleName(m_session->latency->scale)));
        const std::string_view kind = coverageKindName(i.kind);
        return {QString::fromLatin1(kind.data(), static_cast<qsizetype>(kind.size())),
                QString::fromStdString(i.what), handlesText(i.handles), reason};
    }
    row -= c.coverage.size();
    if (row < m_untimedRows.size()) {
        const auto& r = c.rows[m_untimedRows[row]];
        return {
            QStringLiteral("numbers_without_time"),
            QStringLiteral("row %1: %2")
                .arg(r.index)
                .arg(QString::fromStdString(r.id().aot_ops.empty() ? std::string() : r.id().aot_ops.back())),
            handlesText(r.id().aot_debug_handle),
            QString::fromStdString(m_session->latency->rows[m_untimedRows[row]].reason)};
    }
    row -= m_untimedRows.size();
    const auto& u = m_session->latency->timed_without_numerics[m_timedOnly[row]];
    return {QStringLiteral("time_without_numbers"),
            QStringLiteral("%1 (instruction %2)").arg(QString::fromStdString(u.name)).arg(u.instruction_id),
            QString(),
            QStringLiteral("%1 %2 median: %3")
                .arg(u.p50, 0, 'g', 3)
                .arg(QString::fromLatin1(timeScaleName(m_session->latency->scale)))
                .arg(QString::fromStdString(u.reason))};
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
    if (index.row() < 0 || index.row() >= rowCount())
        return {};
    const Item it = item(static_cast<std::size_t>(index.row()));
    switch (index.column()) {
    case Kind: return it.kind;
    case What: return it.what;
    case Handles: return it.handles;
    case Reason: return it.reason;
    default: return {};
    }
}

} // namespace gapscope
