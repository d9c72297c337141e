#include "widgets/op_table_model.h"

#include "core/compare/metric_catalog.h"
#include "widgets/metric_colors.h"
#include "widgets/op_cell_text.h"
#include "widgets/table_roles.h"

#include <QBrush>
#include <QCoreApplication>
#include <QFont>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gapscope {

using namespace op_cell; // the cells' texts

OpTableModel::OpTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpTableModel::setSession(std::shared_ptr<const Session> session) {
    beginResetModel();
    m_session = std::move(session);
    m_ladder.reset(); // another session's rows: its ladder comes with it (setLadder)
    ++m_generation;
    m_measuringStopped = false;
    indexIntroducers();
    endResetModel();
}

void OpTableModel::updateSession(std::shared_ptr<const Session> snapshot, std::size_t first,
                                 std::size_t last) {
    m_session = std::move(snapshot);
    ++m_generation;
    indexIntroducers(); // the findings arrive with the last snapshot
    repaint(first, last);
}

void OpTableModel::repaint(std::size_t first, std::size_t last) {
    const int rows = rowCount();
    if (rows == 0 || first > last || first >= static_cast<std::size_t>(rows))
        return;
    last = std::min(last, static_cast<std::size_t>(rows - 1));
    emit dataChanged(index(static_cast<int>(first), 0), index(static_cast<int>(last), columns() - 1));
}

void OpTableModel::setMeasuringStopped(bool stopped) {
    m_measuringStopped = stopped;
    repaint(0, SIZE_MAX);
}

void OpTableModel::indexIntroducers() {
    m_introducerOfRow.clear();
    m_topIntroducer.reset();
    if (!m_session || !m_session->comparison)
        return;
    m_introducerOfRow.assign(m_session->comparison->rows.size(), std::nullopt);
    for (const auto& in : m_session->introducers)
        if (in.row < m_introducerOfRow.size())
            m_introducerOfRow[in.row] = in;
    if (const auto strongest = strongestGain(m_session->introducers))
        m_topIntroducer = strongest->row;
}

const ComparisonRow* OpTableModel::comparisonRow(int row) const {
    if (!m_session || !m_session->comparison || row < 0 ||
        static_cast<std::size_t>(row) >= m_session->comparison->rows.size())
        return nullptr;
    return &m_session->comparison->rows[static_cast<std::size_t>(row)];
}

int OpTableModel::modelRow(std::size_t index) const {
    return comparisonRow(static_cast<int>(index)) ? static_cast<int>(index) : -1;
}

namespace {

const std::vector<Metric>& tabledMetrics() {
    static const std::vector<Metric> metrics = metricsWhere([](const MetricInfo& m) { return m.tabled; });
    return metrics;
}

constexpr int kTails = 6;

} // namespace

void OpTableModel::setLadder(std::shared_ptr<const StageLadder> ladder) {
    const auto* c = m_session && m_session->comparison ? &*m_session->comparison : nullptr;
    if (ladder && (!c || ladder->method != c->method || ladder->run != c->run))
        ladder.reset(); // another run's or method's: a late result of a switch
    m_ladder = std::move(ladder);
    ++m_generation;
    if (rowCount() > 0)
        emit dataChanged(index(0, column(Tail::LostMost)), index(rowCount() - 1, column(Tail::LostMost)));
}

const LadderRow* OpTableModel::ladderRow(const ComparisonRow& r) const {
    // The ladder lists the comparison's rows first, in row order, then the outputs.
    if (!m_ladder || r.index >= m_ladder->rows.size())
        return nullptr;
    const LadderRow& l = m_ladder->rows[r.index];
    return !l.output && l.row == r.index ? &l : nullptr;
}

int OpTableModel::column(Metric metric) {
    const auto& metrics = tabledMetrics();
    const auto it = std::find(metrics.begin(), metrics.end(), metric);
    return it == metrics.end() ? -1 : FirstMetric + static_cast<int>(it - metrics.begin());
}

int OpTableModel::column(Tail tail) {
    return FirstMetric + static_cast<int>(tabledMetrics().size()) + static_cast<int>(tail);
}

int OpTableModel::columns() {
    return column(Tail::Status) + 1;
}

std::optional<Metric> OpTableModel::metricOf(int column) {
    const int i = column - FirstMetric;
    if (i < 0 || i >= static_cast<int>(tabledMetrics().size()))
        return std::nullopt;
    return tabledMetrics()[static_cast<std::size_t>(i)];
}

std::optional<OpTableModel::Tail> OpTableModel::tailOf(int c) {
    const int i = c - column(Tail::Time);
    return i >= 0 && i < kTails ? std::optional<Tail>(static_cast<Tail>(i)) : std::nullopt;
}

bool OpTableModel::numericColumn(int column) {
    return metricOf(column) || tailOf(column) || column == Index;
}

std::optional<double> OpTableModel::sortKey(int row, int column) const {
    const ComparisonRow* r = comparisonRow(row);
    if (!r || !numericColumn(column))
        return std::nullopt;
    if (const auto metric = metricOf(column)) {
        // Rows without the number sort last in the worst-first order (the
        // order a first click gives): after the worst of higher-is-worse
        // metrics descending, of lower-is-worse ones ascending.
        const double none = metricInfo(*metric).higher_is_worse ? -std::numeric_limits<double>::infinity()
                                                                : std::numeric_limits<double>::infinity();
        const auto value = rowMetric(*r, *metric);
        return value && !std::isnan(*value) ? *value : none;
    }
    if (column == Index) {
        // A tap sorts under the delegate it is inside (TapRow::after_row), in tap order.
        if (r->tap && r->tap->after_row && m_session && m_session->capture)
            return static_cast<double>(*r->tap->after_row) +
                   static_cast<double>(r->tap->index + 1) /
                       static_cast<double>(m_session->capture->taps.size() + 1);
        return static_cast<double>(r->index);
    }
    const auto& in = r->index < m_introducerOfRow.size() ? m_introducerOfRow[r->index] : std::nullopt;
    switch (*tailOf(column)) {
    case Tail::Time:
    case Tail::Share: {
        // Untimed rows last in the slowest-first order, as metrics without a number.
        const RowLatency* t = latencyOf(*r);
        const auto v = !t ? std::nullopt : column == OpTableModel::column(Tail::Time) ? t->p50 : t->share;
        return v ? *v : -std::numeric_limits<double>::infinity();
    }
    case Tail::Gain:
        return in && !std::isnan(in->gain_db) ? in->gain_db : -std::numeric_limits<double>::infinity();
    case Tail::Added: return in ? in->added : -std::numeric_limits<double>::infinity();
    case Tail::LostMost: {
        // The most lost first in the descending order a first click gives.
        const LadderRow* l = ladderRow(*r);
        return l && l->worst_step ? -*l->steps[*l->worst_step].snr : -std::numeric_limits<double>::infinity();
    }
    case Tail::Status: return static_cast<double>(static_cast<int>(r->status));
    }
    return std::nullopt;
}

int OpTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_session || !m_session->comparison)
        return 0;
    return static_cast<int>(m_session->comparison->rows.size());
}

int OpTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : columns();
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* const heads[] = {QT_TR_NOOP("#"),       QT_TR_NOOP("Debug handles"),
                                        QT_TR_NOOP("AOT ops"), QT_TR_NOOP("Runtime ops"),
                                        QT_TR_NOOP("Shape"),   QT_TR_NOOP("Dtype")};
    static_assert(sizeof(heads) / sizeof(heads[0]) == FirstMetric);
    static const char* const tails[] = {QT_TR_NOOP("Time"),         QT_TR_NOOP("Time %"),
                                        QT_TR_NOOP("Gain dB"),      QT_TR_NOOP("Added"),
                                        QT_TR_NOOP("Lost most at"), QT_TR_NOOP("Status")};
    static_assert(sizeof(tails) / sizeof(tails[0]) == kTails);
    if (section >= 0 && section < FirstMetric)
        return tr(heads[section]);
    if (const auto metric = metricOf(section))
        return QString::fromUtf8(metricInfo(*metric).label);
    if (const auto tail = tailOf(section)) {
        if (*tail == Tail::Time && m_session && m_session->latency)
            return tr("Time %1").arg(QString::fromLatin1(timeScaleName(m_session->latency->scale)));
        return tr(tails[static_cast<int>(*tail)]);
    }
    return {};
}

QVariant OpTableModel::data(const QModelIndex& index, int role) const {
    const ComparisonRow* r = index.isValid() ? comparisonRow(index.row()) : nullptr;
    if (!r)
        return {};
    const int col = index.column();
    const std::optional<Metric> metric = metricOf(col);
    const std::optional<Tail> tail = tailOf(col);
    std::optional<double> value; // assigned, not a ?: of optionals: GCC 12 -O2 warns on those falsely
    if (metric)
        value = rowMetric(*r, *metric);
    // A ratio of 0/0 (SNR of two all-zero tensors) where nothing differs.
    const bool allZero = value && std::isnan(*value) && rowMetric(*r, Metric::MaxAbs) == 0.0;
    const bool firstDivergence = m_session->first_divergence && m_session->first_divergence->row == r->index;
    const bool topIntroducer = m_topIntroducer == r->index;
    const Introducer* introducer = r->index < m_introducerOfRow.size() && m_introducerOfRow[r->index]
                                       ? &*m_introducerOfRow[r->index]
                                       : nullptr;
    const bool gainColumn = tail == Tail::Gain, addedColumn = tail == Tail::Added,
               statusColumn = tail == Tail::Status, lostColumn = tail == Tail::LostMost;
    const LadderRow* ladder = lostColumn ? ladderRow(*r) : nullptr;
    const QString pending = r->measured && m_session->complete ? QStringLiteral("—") : QStringLiteral("…");
    if ((tail == Tail::Time || tail == Tail::Share) && role != SortRole && role != RowIndexRole)
        return latencyData(*r, *tail, role);

    switch (role) {
    case Qt::DisplayRole:
        if (metric)
            return metricText(*metric, value, r->measured, allZero, r->bounds);
        if (gainColumn) {
            if (introducer &&
                std::isfinite(introducer->gain_db)) // no "-0.0" for a gain that rounds to nothing
                return QString::number(std::fabs(introducer->gain_db) < 0.05 ? 0.0 : introducer->gain_db, 'f',
                                       1);
            return pending;
        }
        if (addedColumn)
            return introducer ? number(introducer->added) : pending;
        if (lostColumn)
            return ladder && ladder->worst_step
                       ? QString::fromStdString(m_ladder->step_labels[*ladder->worst_step]) +
                             QStringLiteral(" (%1 dB)")
                                 .arg(*ladder->steps[*ladder->worst_step].snr, 0, 'f', 1)
                       : QString();
        if (statusColumn) {
            if (!r->measured)
                return m_measuringStopped ? tr("not computed") : tr("computing…");
            return QString(QString::fromLatin1(rowStatusName(r->status)) +
                           (r->in_executorch ? QString() : QStringLiteral(" *")));
        }
        switch (col) {
        case Index:
            return QString(QString::number(r->index) + (firstDivergence ? QStringLiteral(" ⚑") : QString()) +
                           (topIntroducer ? QStringLiteral(" ▲") : QString()));
        case Handles: return handles(r->id().aot_debug_handle);
        case AotOps: // a tap lists under its delegate: marked as inside it
            return r->tap ? QStringLiteral("↳ ") + joined(r->id().aot_ops, ", ")
                          : joined(r->id().aot_ops, ", ");
        case RuntimeOps: return joined(r->id().runtime_ops, ", ");
        case Shape: return perOutput(r->id().shapes());
        case Dtype: return shortDtypes(perOutput(r->id().dtypes()));
        default: return {};
        }
    case SortRole:
        if (const auto key = sortKey(index.row(), col))
            return *key;
        return data(index, Qt::DisplayRole);
    case RowIndexRole: return static_cast<qulonglong>(r->index);
    case kCopyTextRole: // what Ctrl+C copies: the numbers at full precision
        if (metric && value)
            return QString::number(*value, 'g', 17);
        if (gainColumn && introducer)
            return QString::number(introducer->gain_db, 'g', 17);
        if (addedColumn && introducer)
            return QString::number(introducer->added, 'g', 17);
        return {};
    case MetricNameRole: return metric ? QString::fromLatin1(metricInfo(*metric).name) : QVariant();
    case Qt::BackgroundRole:
        if (gainColumn && topIntroducer)
            return QBrush(QColor(255, 200, 80));
        if (metric && value && r->status == RowStatus::Broadcast)
            return QBrush(QColor(255, 235, 156)); // not a gap: see the tooltip
        if (allZero)
            return QBrush(QColor(230, 230, 230)); // 0/0 judges nothing (issue 56: NaN on a green cell)
        if (metric && value) {
            const auto rel = rowMetric(*r, Metric::RelL2);
            return QBrush(gapColor(rel.value_or(0)));
        }
        if (statusColumn && r->status != RowStatus::Ok)
            return QBrush(r->status == RowStatus::Broadcast ? QColor(255, 235, 156) : QColor(230, 230, 230));
        return {};
    case Qt::FontRole:
        if (firstDivergence) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (gainColumn && introducer) {
            QStringList producers;
            for (auto p : introducer->producers)
                producers << QString::number(p);
            return tr("Rel. L2 %1 against %2, the worst of its producers (rows %3, %4): it adds %5")
                .arg(number(introducer->own), number(introducer->worst_producer),
                     producers.isEmpty() ? tr("none: its inputs are exact")
                                         : producers.join(QStringLiteral(", ")),
                     introducer->producers_from_graph ? tr("from the reference graph")
                                                      : tr("the op before it in execution order: no graph"),
                     number(introducer->added));
        }
        if (lostColumn && ladder) {
            QStringList steps;
            for (std::size_t i = 0; i < ladder->steps.size(); ++i)
                steps << QStringLiteral("%1: %2").arg(QString::fromStdString(m_ladder->step_labels[i]),
                                                      ladder->steps[i].snr
                                                          ? QString::number(*ladder->steps[i].snr, 'f', 1)
                                                          : QStringLiteral("—"));
            return tr("The SNR (dB) each step adds to this op (the Stages tab): %1")
                .arg(steps.join(QStringLiteral(", ")));
        }
        if (addedColumn)
            return tr("The rel. L2 this op adds to the worst error it receives (its own minus its worst "
                      "producer's). Sorted worst first, the ops that introduce the most error: the error "
                      "introducers of the JSON report.");
        if (allZero)
            return tr(
                "0/0: both tensors are all zero here, so this ratio has no value (ExecuTorch's is NaN); "
                "they agree exactly (max |Δ| 0)");
        if (metric && metricInfo(*metric).tip)
            return QCoreApplication::translate("metric", metricInfo(*metric).tip);
        if (col == Index && topIntroducer)
            return tr("▲ the error grows the most here (see the Gain dB column)");
        if (!r->measured)
            return m_measuringStopped ? tr("Loading was cancelled before this op was measured: File → Reload "
                                           "(F5) computes it")
                                      : tr("The metrics of this op are still being computed");
        // Rich text, so long reasons and op lists wrap instead of running off the screen.
        if (metric && r->status == RowStatus::Broadcast)
            return wrapped(
                tr("Broadcast, not element for element: %1").arg(QString::fromStdString(r->reason)));
        if (col == AotOps && r->tap)
            return wrapped(tapTip(*r));
        if (col == AotOps || col == RuntimeOps)
            return wrapped(data(index, Qt::DisplayRole).toString());
        if (col == Dtype) {
            const QString full = perOutput(r->id().dtypes());
            return wrapped(
                r->dequantized // the row's flag, not its text (issue 57)
                    ? tr("%1: the device's integer codes are dequantised with their scale and zero "
                         "point before they are compared")
                          .arg(full)
                    : full);
        }
        if (!r->reason.empty())
            return wrapped(QString::fromStdString(r->reason));
        if (!r->selection.empty())
            return wrapped(QString::fromStdString(r->selection));
        return {};
    case Qt::TextAlignmentRole:
        return metric || col == Index || gainColumn || addedColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    default: return {};
    }
}

const RowLatency* OpTableModel::latencyOf(const ComparisonRow& r) const {
    const auto& l = m_session ? m_session->latency : nullptr;
    return l && r.index < l->rows.size() ? &l->rows[r.index] : nullptr;
}

// The Time and Time % cells: what core measured (op_latency.h), and where it came from.
QVariant OpTableModel::latencyData(const ComparisonRow& r, Tail tail, int role) const {
    const RowLatency* t = latencyOf(r);
    const auto value = !t ? std::nullopt : tail == Tail::Time ? t->p50 : t->share;
    switch (role) {
    case Qt::DisplayRole:
        if (!value)
            return m_session->complete ? QStringLiteral("—") : QStringLiteral("…");
        return tail == Tail::Time ? QString::number(*value, 'g', 3)
                                  : QString::number(100 * *value, 'f', *value < 0.001 ? 2 : 1);
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        if (!m_session->latency)
            return m_session->complete ? tr("The ETDump holds no timing for this run") : QVariant();
        if (!t || !t->p50)
            return t ? wrapped(tr("No time: %1").arg(QString::fromStdString(t->reason))) : QVariant();
        const auto& l = *m_session->latency;
        const QString unit = QString::fromLatin1(timeScaleName(l.scale));
        QString from;
        switch (t->source) {
        case LatencySource::OperatorCall:
            from = t->events.size() > 1
                       ? tr("its %1 kernels' OPERATOR_CALLs, summed run by run").arg(t->events.size())
                       : tr("its OPERATOR_CALL");
            break;
        case LatencySource::DelegateCall: from = tr("the DELEGATE_CALL that returns it"); break;
        case LatencySource::DelegateOp:
            from = tr("the delegate's own event %1").arg(QString::fromStdString(t->event));
            break;
        case LatencySource::DelegateCycles:
            from = tr("QNN's %1 cycles of the call's %2 op cycles, times the call's time")
                       .arg(QString::number(*t->cycles, 'f', 0), QString::number(*t->call_cycles, 'f', 0));
            break;
        case LatencySource::None: break;
        }
        QString text = tr("%1 %2, the median over %n run(s), from %3", nullptr, static_cast<int>(l.runs))
                           .arg(QString::number(*t->p50, 'g', 4), unit, from);
        if (t->share)
            text += tr("; %1 % of Method::execute").arg(QString::number(100 * *t->share, 'g', 3));
        if (t->shared_by > 1)
            text += tr(". The time is shared by the %1 rows of one call").arg(t->shared_by);
        return wrapped(text);
    }
    default: return {};
    }
}

} // namespace gapscope
