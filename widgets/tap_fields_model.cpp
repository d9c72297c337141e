#include "widgets/tap_fields_model.h"

#include "core/report/text_format.h"
#include "widgets/table_roles.h"

#include <cmath>
#include <limits>

namespace gapscope {

namespace {

// What each STATS field is, as ExecuTorch's reducer computes it on the device.
QString fieldTip(const std::string& name) {
    if (name == "p99_abs")
        return QObject::tr("99th percentile of |x|");
    if (name == "abs_max")
        return QObject::tr("max |x|");
    if (name == "nan_count" || name == "inf_count" || name == "zero_count")
        return QObject::tr("how many elements are NaN, ±Inf or exactly zero");
    if (name == "rms")
        return QObject::tr("√(mean of x²)");
    return {};
}

} // namespace

void TapFieldsModel::setTap(std::shared_ptr<const TapRow> tap) {
    beginResetModel();
    m_tap = tap && tap->fields ? std::move(tap) : nullptr;
    endResetModel();
}

int TapFieldsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_tap ? 0 : static_cast<int>(m_tap->fields->names.size());
}

int TapFieldsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TapFieldsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_tap || index.row() >= rowCount())
        return {};
    const TapFields& f = *m_tap->fields;
    const auto k = static_cast<std::size_t>(index.row());
    const double reference = f.reference[k], device = f.runtime[k];
    const double difference = device - reference;
    const double relative = reference != 0    ? difference / std::fabs(reference)
                            : difference == 0 ? 0.0
                                              : std::numeric_limits<double>::quiet_NaN();
    const auto value = [&]() -> double {
        switch (index.column()) {
        case Reference: return reference;
        case Device: return device;
        case Difference: return difference;
        case Relative: return relative;
        default: return std::numeric_limits<double>::quiet_NaN();
        }
    };
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == Field)
            return QString::fromStdString(f.names[k]);
        if (index.column() == Relative && std::isnan(relative))
            return QStringLiteral("—");
        return QString::fromStdString(shortNumber(value(), 6));
    case kCopyTextRole:
        if (index.column() == Field)
            return QString::fromStdString(f.names[k]);
        return QString::number(value(), 'g', 17);
    case SortRole:
        if (index.column() == Field)
            return index.row(); // the reducer's own order
        return std::isnan(value()) ? std::numeric_limits<double>::infinity() : value();
    case Qt::TextAlignmentRole:
        return index.column() == Field ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: return index.column() == Field ? fieldTip(f.names[k]) : QVariant();
    default: return {};
    }
}

QVariant TapFieldsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Field: return tr("Statistic");
    case Reference: return tr("Reference");
    case Device: return tr("Device");
    case Difference: return tr("Device − reference");
    case Relative: return tr("Relative");
    default: return {};
    }
}

} // namespace gapscope
