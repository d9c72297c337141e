#include "widgets/event_table_model.h"

#include "core/etdump/scalar_type.h"

namespace gapscope {

namespace {

QString tensorText(const Tensor& t) {
    QStringList dims;
    for (auto d : t.sizes)
        dims << QString::number(d);
    return QString::fromStdString(scalarTypeName(t.scalar_type)) + QLatin1Char(' ') +
           (dims.isEmpty() ? QStringLiteral("scalar") : dims.join(QLatin1Char('x'))) +
           (t.data == TensorData::Present
                ? QString()
                : QStringLiteral(" (%1)").arg(QString::fromLatin1(tensorDataName(t.data))));
}

QString valueText(const Value& v) {
    if (v.type() == ValueType::Tensor && !v.tensors.empty())
        return tensorText(v.tensors.front());
    if (v.type() == ValueType::TensorList)
        return QObject::tr("%1 tensors").arg(v.tensors.size());
    switch (v.type()) {
    case ValueType::Int: return QString::number(v.int_val);
    case ValueType::Bool: return v.bool_val ? QStringLiteral("true") : QStringLiteral("false");
    case ValueType::Float: return QString::number(static_cast<double>(v.float_val));
    case ValueType::Double: return QString::number(v.double_val);
    default: return QString::fromLatin1(valueTypeName(v.type()));
    }
}

} // namespace

EventTableModel::EventTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventTableModel::setSession(std::shared_ptr<const Session> session) {
    beginResetModel();
    m_session = std::move(session);
    m_rows.clear();
    if (m_session && m_session->dump)
        for (std::size_t r = 0; r < m_session->dump->runs.size(); ++r)
            for (std::size_t e = 0; e < m_session->dump->runs[r].events.size(); ++e)
                m_rows.push_back({r, e});
    endResetModel();
}

QString EventTableModel::summary() const {
    if (!m_session || !m_session->dump)
        return tr("No ETDump is open");
    std::size_t profile = 0, debug = 0, alloc = 0;
    for (const auto& run : m_session->dump->runs)
        for (const auto& e : run.events) {
            profile += std::holds_alternative<ProfileEvent>(e);
            debug += std::holds_alternative<DebugEvent>(e);
            alloc += std::holds_alternative<AllocationEvent>(e);
        }
    return tr("%1 runs, %2 events: %3 profiled, %4 debug values, %5 allocations")
        .arg(m_session->dump->runs.size())
        .arg(m_rows.size())
        .arg(profile)
        .arg(debug)
        .arg(alloc);
}

int EventTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int EventTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_session || !m_session->dump || index.row() >= rowCount())
        return {};
    const Ref ref = m_rows[static_cast<std::size_t>(index.row())];
    const Event& event = m_session->dump->runs[ref.run].events[ref.event];
    const auto* profile = std::get_if<ProfileEvent>(&event);
    const auto* debug = std::get_if<DebugEvent>(&event);
    const auto* alloc = std::get_if<AllocationEvent>(&event);
    const int col = index.column();
    if (role == SortRole) {
        switch (col) {
        // Run, then event: a sort on # keeps each run's events together.
        case Run:
        case Index: return (static_cast<qulonglong>(ref.run) << 32) | static_cast<qulonglong>(ref.event);
        case Instruction: return profile ? profile->instruction_id : debug ? debug->instruction_id : -1;
        case DurationUs:
            return profile && profile->end_time >= profile->start_time
                       ? static_cast<double>(profile->end_time - profile->start_time) / 1000.0
                       : -1.0;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole)
        return col == Run || col == Index || col == Instruction || col == DurationUs
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    switch (col) {
    case Run: return static_cast<qulonglong>(ref.run);
    case Index: return static_cast<qulonglong>(ref.event);
    case Kind:
        return profile ? tr("profile") : debug ? tr("debug value") : alloc ? tr("allocation") : tr("empty");
    case Name:
        if (profile && profile->name)
            return QString::fromStdString(*profile->name);
        if (debug && debug->name)
            return QString::fromStdString(*debug->name);
        return {};
    case Instruction: {
        const int id = profile ? profile->instruction_id : debug ? debug->instruction_id : -1;
        return id >= 0 ? QVariant(id) : QVariant();
    }
    case DelegateId: {
        const auto& str = profile ? profile->delegate_debug_id_str
                          : debug ? debug->delegate_debug_id_str
                                  : std::nullopt;
        const int id = profile ? profile->delegate_debug_id_int : debug ? debug->delegate_debug_id_int : -1;
        return str ? QString::fromStdString(*str) : id >= 0 ? QString::number(id) : QString();
    }
    case DurationUs:
        return profile && profile->end_time >= profile->start_time
                   ? QVariant(QString::number(
                         static_cast<double>(profile->end_time - profile->start_time) / 1000.0, 'g', 4))
                   : QVariant();
    case Output:
        if (debug && debug->debug_entry)
            return valueText(*debug->debug_entry);
        if (alloc)
            return tr("%1 bytes").arg(alloc->allocation_size);
        return {};
    default: return {};
    }
}

QVariant EventTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == DelegateId)
        return tr("What the delegate logged to identify the event: a number, or a name (XNNPACK logs its "
                  "operators' names, QNN its ops' names)");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const titles[] = {QT_TR_NOOP("Run"),         QT_TR_NOOP("#"),
                                         QT_TR_NOOP("Kind"),        QT_TR_NOOP("Name"),
                                         QT_TR_NOOP("Instruction"), QT_TR_NOOP("Delegate event"),
                                         QT_TR_NOOP("Duration µs"), QT_TR_NOOP("Value")};
    return section >= 0 && section < ColumnCount ? tr(titles[section]) : QVariant();
}

} // namespace gapscope
