#include "widgets/run_diff_model.h"

#include "core/report/text_format.h"
#include "widgets/table_roles.h"

#include <QBrush>
#include <QColor>
#include <cmath>

namespace gapscope {

RunDiffModel::RunDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunDiffModel::setRuns(std::shared_ptr<const ComparedRuns> runs) {
    beginResetModel();
    m_runs = std::move(runs);
    computeDeltas();
    endResetModel();
}

void RunDiffModel::setMetric(Metric metric) {
    if (metric == m_metric)
        return;
    m_metric = metric;
    computeDeltas();
    if (rowCount() > 0)
        emit dataChanged(index(0, ValueA), index(rowCount() - 1, WorseBy));
    emit headerDataChanged(Qt::Horizontal, ValueA, WorseBy);
}

void RunDiffModel::computeDeltas() {
    m_deltas.clear();
    if (!m_runs)
        return;
    for (const auto& p : m_runs->match.pairs)
        m_deltas.push_back(metricDelta(m_runs->a, m_runs->b, p, m_metric));
}

std::optional<double> RunDiffModel::worseBy(int row) const {
    return row >= 0 && static_cast<std::size_t>(row) < m_deltas.size() ? m_deltas[row].worse_by
                                                                       : std::nullopt;
}

bool RunDiffModel::paired(int row) const {
    if (!m_runs || row < 0 || static_cast<std::size_t>(row) >= m_runs->match.pairs.size())
        return false;
    const auto& p = m_runs->match.pairs[row];
    return p.a && p.b;
}

RunDiffModel::Times RunDiffModel::times(const RowPairing& p) const {
    Times t{p.a ? m_runs->a.rows[*p.a].time_ms : std::nullopt,
            p.b ? m_runs->b.rows[*p.b].time_ms : std::nullopt, std::nullopt};
    if (t.a && t.b && *t.a > 0)
        t.ratio = *t.b / *t.a;
    return t;
}

std::optional<double> RunDiffModel::sortNumber(int row, int column) const {
    if (!m_runs || row < 0 || row >= rowCount())
        return std::nullopt;
    const auto& p = m_runs->match.pairs[static_cast<std::size_t>(row)];
    const MetricDelta& d = m_deltas[static_cast<std::size_t>(row)];
    const auto key = [](const std::optional<double>& v) { return v ? *v : std::nan(""); };
    switch (column) {
    case A: return p.a ? static_cast<double>(m_runs->a.rows[*p.a].index) : -1.0;
    case B: return p.b ? static_cast<double>(m_runs->b.rows[*p.b].index) : -1.0;
    case ValueA: return key(d.a);
    case ValueB: return key(d.b);
    case Delta: return key(d.delta);
    case WorseBy: return key(d.worse_by);
    case TimeA: return key(times(p).a);
    case TimeB: return key(times(p).b);
    case TimeRatio: return key(times(p).ratio);
    default: return std::nullopt;
    }
}

int RunDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_deltas.size());
}

int RunDiffModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString side(const RunSummary& run, const std::optional<std::size_t>& row) {
    if (!row)
        return QStringLiteral("—");
    // The name the op table's chart, graph and status bar give the row
    // (displayOpName; issue 56: one row had three names), and how many ops it holds.
    const RunRow& r = run.rows[*row];
    QString text = QStringLiteral("%1  %2").arg(r.index).arg(QString::fromStdString(r.name));
    if (r.aot_ops.size() > 1)
        text += QStringLiteral(", %1 ops").arg(r.aot_ops.size());
    return text;
}

QString value(const MetricInfo& m, const std::optional<double>& v) {
    if (!v)
        return QStringLiteral("—");
    return QString::fromStdString(m.format == MetricFormat::Precise ? cosineNumber(*v) : shortNumber(*v));
}

} // namespace

QVariant RunDiffModel::data(const QModelIndex& index, int role) const {
    if (!m_runs || !index.isValid() || index.row() >= rowCount())
        return {};
    const auto& p = m_runs->match.pairs[index.row()];
    const MetricDelta& d = m_deltas[index.row()];
    const MetricInfo& m = metricInfo(m_metric);
    if (role == PairRole)
        return index.row();
    const auto [timeA, timeB, ratio] = times(p);
    if (role == SortRole) {
        const auto v = sortNumber(index.row(), index.column());
        return v ? QVariant(*v) : data(index, Qt::DisplayRole);
    }
    if (role == kCopyTextRole) { // full precision, as the reports write numbers
        const auto exact = [](const std::optional<double>& v) {
            return v ? QVariant(QString::fromStdString(number(*v))) : QVariant();
        };
        switch (index.column()) {
        case ValueA: return exact(d.a);
        case ValueB: return exact(d.b);
        case Delta: return exact(d.delta);
        case WorseBy: return exact(d.worse_by);
        case TimeA: return exact(timeA);
        case TimeB: return exact(timeB);
        case TimeRatio: return exact(ratio);
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case A: return side(m_runs->a, p.a);
        case B: return side(m_runs->b, p.b);
        case Basis: return QString::fromLatin1(matchBasisLabel(p.basis));
        case ValueA: return value(m, d.a);
        case ValueB: return value(m, d.b);
        case Delta: return d.delta ? value(m, d.delta) : QString();
        case WorseBy:
            if (p.referencesDisagree())
                return QStringLiteral("not one tensor");
            return d.worse_by ? value(m, d.worse_by) : QString();
        case TimeA: return timeA ? QString::number(*timeA, 'g', 3) : QStringLiteral("—");
        case TimeB: return timeB ? QString::number(*timeB, 'g', 3) : QStringLiteral("—");
        case TimeRatio: return ratio ? QStringLiteral("%1×").arg(QString::number(*ratio, 'f', 2)) : QString();
        case Note: return QString::fromStdString(p.note);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= ValueA && index.column() <= TimeRatio)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == WorseBy && p.referencesDisagree())
        return QBrush(QColor(0x80, 0x80, 0x80));
    if (role == Qt::ForegroundRole && index.column() == WorseBy && d.worse_by && *d.worse_by != 0)
        return QBrush(*d.worse_by > 0 ? QColor(0xb0, 0x20, 0x20) : QColor(0x20, 0x80, 0x30));
    if (role == Qt::ToolTipRole) {
        if ((index.column() == A && p.a) || (index.column() == B && p.b)) {
            const RunRow& r = index.column() == A ? m_runs->a.rows[*p.a] : m_runs->b.rows[*p.b];
            return QStringLiteral("Row %1, compared at %2's output%3")
                .arg(r.index)
                .arg(QString::fromStdString(r.compared_node))
                .arg(r.aot_ops.size() > 1 ? QStringLiteral(" (one of its %1 ops)").arg(r.aot_ops.size())
                                          : QString());
        }
        if (index.column() == Basis)
            return QStringLiteral("What this pairing rests on (docs/compare-runs.md)");
        if (index.column() == WorseBy && p.referencesDisagree())
            return QString::fromStdString(p.note);
        if (index.column() == WorseBy)
            return QStringLiteral("How much worse B is than A on %1, in its unit: positive is worse. Levels "
                                  "in dB count up to %2 dB (rounding above it): exact against 127 dB is 0")
                .arg(QString::fromLatin1(m.label))
                .arg(kRoundingFloorDb);
        if (index.column() == TimeRatio)
            return QStringLiteral("B's time over A's (each the median over its runs): above 1, B is slower");
        if ((index.column() == TimeA || index.column() == TimeB) &&
            !(index.column() == TimeA ? timeA : timeB))
            return QStringLiteral("No time: the ETDump did not time this op, or the report predates times");
        if (index.column() == Note && !p.note.empty())
            return QString::fromStdString(p.note);
    }
    return {};
}

QVariant RunDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    const QString label = QString::fromLatin1(metricInfo(m_metric).label);
    switch (section) {
    case A: return QStringLiteral("A: row, op");
    case B: return QStringLiteral("B: row, op");
    case Basis: return QStringLiteral("Matched by");
    case ValueA: return QString(label + QStringLiteral(" A"));
    case ValueB: return QString(label + QStringLiteral(" B"));
    case Delta: return QStringLiteral("Δ (B − A)");
    case WorseBy: return QStringLiteral("B worse by");
    case TimeA: return QStringLiteral("Time A ms");
    case TimeB: return QStringLiteral("Time B ms");
    case TimeRatio: return QStringLiteral("B/A time");
    case Note: return QStringLiteral("Note");
    }
    return {};
}

} // namespace gapscope
