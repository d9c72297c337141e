#pragma once

#include "core/session/session.h"

#include <QAbstractTableModel>
#include <memory>

namespace gapscope {

// One row per compared op (Comparison::rows), ExecuTorch's columns plus ours.
// Numbers sort by value through SortRole, never by their text.
class OpTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Index,
        Handles,
        AotOps,
        RuntimeOps,
        Shape,
        Dtype,
        Mse,
        L1,
        Snr,
        MaxAbs,
        RelL2,
        Cosine,
        Status,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, RowIndexRole, MetricNameRole };

    explicit OpTableModel(QObject* parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    // The session's rows changed in place (a staged load measured them, or the
    // findings arrived): repaint and re-sort those rows.
    void rowsChanged(std::size_t first, std::size_t last);
    void allRowsChanged();
    const ComparisonRow* comparisonRow(int row) const;
    // The model row holding Comparison row `index`, or -1.
    int modelRow(std::size_t index) const;
    static const char* metricOf(int column); // "mse" for Mse, ..., nullptr for text columns

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Session> m_session;
};

} // namespace gapscope
