#pragma once

#include "core/compare/comparison_row.h"

#include <QAbstractTableModel>
#include <memory>

namespace gapscope {

// A reduced tap's fields side by side (issue 58): a STATS tap is 13 numbers, not
// a tensor, so the tensor panel shows them as a table rather than as heatmaps.
// Reads the fields core compared (TapRow::fields); derives nothing but the
// difference of two numbers it shows.
class TapFieldsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Field, Reference, Device, Difference, Relative, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1; // the number itself; NaN sorts last

    using QAbstractTableModel::QAbstractTableModel;
    // The fields of a tap row (null, or a row without fields: empty).
    void setTap(std::shared_ptr<const TapRow> tap);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const TapRow> m_tap;
};

} // namespace gapscope
