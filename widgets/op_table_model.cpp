#include "widgets/op_table_model.h"

#include "core/compare/metric_catalog.h"
#include "widgets/metric_colors.h"

#include <QBrush>
#include <QFont>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>

namespace gapscope {

namespace {

QString joined(const std::vector<std::string>& items, const char* sep) {
    QStringList l;
    for (const auto& i : items)
        l << QString::fromStdString(i);
    return l.join(QString::fromLatin1(sep));
}

// Per-output texts of a row: one entry when every output shares it ("… ×3"), so a
// split's three identical dtypes do not push the numbers off the table.
QString perOutput(const std::vector<std::string>& items) {
    if (items.size() > 1 &&
        std::all_of(items.begin(), items.end(), [&](const auto& i) { return i == items[0]; }))
        return QString::fromStdString(items[0]) + QStringLiteral(" ×") + QString::number(items.size());
    return joined(items, "; ");
}

QString handles(const HandleTuple& h) {
    QStringList l;
    for (auto x : h)
        l << QString::number(x);
    return l.join(QLatin1Char(','));
}

QString wrapped(const QString& text) {
    return QStringLiteral("<qt>") + text.toHtmlEscaped() + QStringLiteral("</qt>");
}

QString number(double v) {
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QString::number(v, 'g', 3);
}

} // namespace

OpTableModel::OpTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpTableModel::setSession(std::shared_ptr<const Session> session) {
    beginResetModel();
    m_session = std::move(session);
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
    emit dataChanged(index(static_cast<int>(first), 0), index(static_cast<int>(last), ColumnCount - 1));
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

std::optional<Metric> OpTableModel::metricEnumOf(int column) {
    switch (column) {
    case Mse: return Metric::Mse;
    case L1: return Metric::L1;
    case Snr: return Metric::Snr;
    case MaxAbs: return Metric::MaxAbs;
    case RelL2: return Metric::RelL2;
    case Cosine: return Metric::Cosine;
    case Steps: return Metric::RmseSteps;
    case Saturation: return Metric::Saturation;
    default: return std::nullopt;
    }
}

const char* OpTableModel::metricOf(int column) {
    const auto metric = metricEnumOf(column);
    return metric ? metricInfo(*metric).name : nullptr;
}

bool OpTableModel::numericColumn(int column) {
    return metricEnumOf(column) || column == Gain || column == Added || column == Index || column == Status;
}

std::optional<double> OpTableModel::sortKey(int row, int column) const {
    const ComparisonRow* r = comparisonRow(row);
    if (!r || !numericColumn(column))
        return std::nullopt;
    if (const auto metric = metricEnumOf(column)) {
        // Rows without the number sort last in the worst-first order (the
        // order a first click gives): after the worst of higher-is-worse
        // metrics descending, of lower-is-worse ones ascending.
        const double none = metricInfo(*metric).higher_is_worse ? -std::numeric_limits<double>::infinity()
                                                                : std::numeric_limits<double>::infinity();
        const auto value = rowMetric(*r, *metric);
        return value && !std::isnan(*value) ? *value : none;
    }
    switch (column) {
    case Gain: {
        const auto& in = r->index < m_introducerOfRow.size() ? m_introducerOfRow[r->index] : std::nullopt;
        return in && !std::isnan(in->gain_db) ? in->gain_db : -std::numeric_limits<double>::infinity();
    }
    case Added: {
        const auto& in = r->index < m_introducerOfRow.size() ? m_introducerOfRow[r->index] : std::nullopt;
        return in ? in->added : -std::numeric_limits<double>::infinity();
    }
    case Index: return static_cast<double>(r->index);
    case Status: return static_cast<double>(static_cast<int>(r->status));
    default: return std::nullopt;
    }
}

int OpTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_session || !m_session->comparison)
        return 0;
    return static_cast<int>(m_session->comparison->rows.size());
}

int OpTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* const names[] = {
        QT_TR_NOOP("#"),      QT_TR_NOOP("Debug handles"), QT_TR_NOOP("AOT ops"), QT_TR_NOOP("Runtime ops"),
        QT_TR_NOOP("Shape"),  QT_TR_NOOP("Dtype"),         QT_TR_NOOP("MSE"),     QT_TR_NOOP("L1"),
        QT_TR_NOOP("SNR dB"), QT_TR_NOOP("Max |Δ|"),       QT_TR_NOOP("Rel. L2"), QT_TR_NOOP("Cosine"),
        QT_TR_NOOP("Steps"),  QT_TR_NOOP("Sat. %"),        QT_TR_NOOP("Gain dB"), QT_TR_NOOP("Added"),
        QT_TR_NOOP("Status")};
    static_assert(sizeof(names) / sizeof(names[0]) == ColumnCount);
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant OpTableModel::data(const QModelIndex& index, int role) const {
    const ComparisonRow* r = index.isValid() ? comparisonRow(index.row()) : nullptr;
    if (!r)
        return {};
    const int col = index.column();
    const char* metric = metricOf(col);
    std::optional<double> value; // assigned, not a ?: of optionals: GCC 12 -O2 warns on those falsely
    if (const auto m = metricEnumOf(col))
        value = rowMetric(*r, *m);
    const bool firstDivergence = m_session->first_divergence && m_session->first_divergence->row == r->index;
    const bool topIntroducer = m_topIntroducer == r->index;
    const Introducer* introducer = r->index < m_introducerOfRow.size() && m_introducerOfRow[r->index]
                                       ? &*m_introducerOfRow[r->index]
                                       : nullptr;
    const std::optional<double> gain = col == Gain && introducer && std::isfinite(introducer->gain_db)
                                           ? std::optional<double>(introducer->gain_db)
                                           : std::nullopt;

    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Index:
            return QString(QString::number(r->index) + (firstDivergence ? QStringLiteral(" ⚑") : QString()) +
                           (topIntroducer ? QStringLiteral(" ▲") : QString()));
        case Gain:
            if (gain) // no "-0.0" for a gain that rounds to nothing
                return QString::number(std::fabs(*gain) < 0.05 ? 0.0 : *gain, 'f', 1);
            return r->measured && m_session->complete ? QStringLiteral("—") : QStringLiteral("…");
        case Added:
            if (introducer)
                return number(introducer->added);
            return r->measured && m_session->complete ? QStringLiteral("—") : QStringLiteral("…");
        case Handles: return handles(r->aot_debug_handle);
        case AotOps: return joined(r->aot_ops, ", ");
        case RuntimeOps: return joined(r->runtime_ops, ", ");
        case Shape: return perOutput(r->shapes);
        case Dtype: return perOutput(r->dtypes);
        case Status:
            if (!r->measured)
                return m_measuringStopped ? tr("not computed") : tr("computing…");
            return QString(QString::fromLatin1(rowStatusName(r->status)) +
                           (r->in_executorch ? QString() : QStringLiteral(" *")));
        case Cosine:
            // Quantised backends score 0.9999x: three digits would all read "1".
            if (value && std::isfinite(*value))
                return QString::number(*value, 'g', 6);
            return value ? number(*value) : r->measured ? QStringLiteral("—") : QStringLiteral("…");
        case Saturation:
            if (value)
                return QString::number(100.0 * *value, 'g', 3);
            return r->measured ? QStringLiteral("—") : QStringLiteral("…");
        default: return value ? number(*value) : r->measured ? QStringLiteral("—") : QStringLiteral("…");
        }
    case SortRole:
        if (const auto key = sortKey(index.row(), col))
            return *key;
        return data(index, Qt::DisplayRole);
    case RowIndexRole: return static_cast<qulonglong>(r->index);
    case MetricNameRole: return metric ? QString::fromLatin1(metric) : QVariant();
    case Qt::BackgroundRole:
        if (col == Gain && topIntroducer)
            return QBrush(QColor(255, 200, 80));
        if (metric && value && r->status == RowStatus::Broadcast)
            return QBrush(QColor(255, 235, 156)); // not a gap: see the tooltip
        if (metric && value) {
            const auto rel = rowMetric(*r, Metric::RelL2);
            return QBrush(gapColor(rel.value_or(0)));
        }
        if (col == Status && r->status != RowStatus::Ok)
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
        if (col == Gain && introducer) {
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
        if (col == Added)
            return tr("The rel. L2 this op adds to the worst error it receives (its own minus its worst "
                      "producer's). Sorted worst first, the ops that introduce the most error: the error "
                      "introducers of the JSON report.");
        if (col == Steps)
            return tr("√MSE in quantisation steps of the device tensor (its scale); the worst of the row's "
                      "outputs. About 0.29 is rounding alone.");
        if (col == Saturation)
            return tr("Share of device values at the quantisation limits (qmin or qmax): clipping");
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
        if (col == AotOps || col == RuntimeOps)
            return wrapped(data(index, Qt::DisplayRole).toString());
        if (!r->reason.empty())
            return wrapped(QString::fromStdString(r->reason));
        if (!r->selection.empty())
            return wrapped(QString::fromStdString(r->selection));
        return {};
    case Qt::TextAlignmentRole:
        return metric || col == Index || col == Gain || col == Added
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    default: return {};
    }
}

} // namespace gapscope
