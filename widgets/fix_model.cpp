#include "widgets/fix_model.h"

#include "widgets/table_roles.h"

#include <QBrush>
#include <QColor>
#include <cmath>
#include <limits>

namespace gapscope {

QString fixDbText(const std::optional<double>& db) {
    if (!db || std::isnan(*db))
        return QStringLiteral("—");
    if (std::isinf(*db))
        return *db > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QStringLiteral("%1 dB").arg(*db, 0, 'f', 1);
}

void FixModel::setReport(std::shared_ptr<const FixReport> report) {
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

int FixModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->candidates.size());
}

int FixModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FixModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Module: return tr("Kept in float");
    case Why: return tr("Why tried");
    case SnrAfter: return tr("Output SNR");
    case Recovered: return tr("Recovered");
    case Size: return tr("Size");
    case OpsOutside: return tr("Ops off delegates");
    case Latency: return tr("Latency ms");
    default: return {};
    }
}

QVariant FixModel::data(const QModelIndex& index, int role) const {
    if (!m_report || !index.isValid() || index.row() >= rowCount())
        return {};
    const FixCandidate& c = m_report->candidates[static_cast<std::size_t>(index.row())];
    const FixTrial* t = c.trial ? &*c.trial : nullptr;
    const FixTrial& b = m_report->baseline;
    const bool ran = t && t->error.empty();
    const bool best = m_report->best && t && m_report->best->keep_float == t->keep_float;
    const double none = -std::numeric_limits<double>::infinity();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Module: return QString::fromStdString(c.module);
        case Why: return QString::fromStdString(c.why);
        case SnrAfter: return !t ? tr("not run (budget)") : ran ? fixDbText(t->output_snr_db) : tr("failed");
        case Recovered: return ran ? fixDbText(c.recovered_db) : QStringLiteral("—");
        case Size:
            return ran ? QStringLiteral("%1%2 B")
                             .arg(t->size_bytes >= b.size_bytes ? QStringLiteral("+") : QStringLiteral("−"))
                             .arg(static_cast<qulonglong>(t->size_bytes >= b.size_bytes
                                                              ? t->size_bytes - b.size_bytes
                                                              : b.size_bytes - t->size_bytes))
                       : QStringLiteral("—");
        case OpsOutside:
            return ran ? QString::asprintf("%+lld", static_cast<long long>(t->ops_outside_delegates -
                                                                           b.ops_outside_delegates))
                       : QStringLiteral("—");
        case Latency:
            return ran && t->latency_ms ? QString::number(*t->latency_ms, 'f', 2) : QStringLiteral("—");
        default: return {};
        }
    case SortRole:
        switch (index.column()) {
        case Module: return QString::fromStdString(c.module);
        case Why: return QString::fromStdString(c.why);
        case SnrAfter: return ran && t->output_snr_db ? *t->output_snr_db : none;
        case Recovered: return ran && c.recovered_db ? *c.recovered_db : none;
        case Size: return ran ? static_cast<double>(t->size_bytes) : none;
        case OpsOutside: return ran ? static_cast<double>(t->ops_outside_delegates) : none;
        case Latency: return ran && t->latency_ms ? *t->latency_ms : none;
        default: return {};
        }
    case kCopyTextRole:
        if (index.column() == SnrAfter && ran && t->output_snr_db)
            return QString::number(*t->output_snr_db, 'g', 17);
        if (index.column() == Recovered && ran && c.recovered_db)
            return QString::number(*c.recovered_db, 'g', 17);
        return {};
    case Qt::ToolTipRole:
        if (t && !t->error.empty())
            return QString::fromStdString(t->error);
        if (index.column() == SnrAfter && ran)
            return tr("%1 kept in float, quantised, lowered and run: the program output's SNR against the "
                      "float model (baseline %2)")
                .arg(QString::fromStdString(c.module), fixDbText(b.output_snr_db));
        return {};
    case Qt::BackgroundRole:
        if (best)
            return QBrush(QColor(200, 235, 200)); // the configuration the snippet holds
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= SnrAfter)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default: return {};
    }
}

} // namespace gapscope
