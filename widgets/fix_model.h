#pragma once

#include "core/report/fix_report.h"

#include <QAbstractTableModel>
#include <memory>

namespace gapscope {

// gapscope-capture fix's candidates (issue 59), one row each: the module kept in
// float, why it was tried, the output SNR its verified run reached, what it
// recovered over the baseline, and its cost (size, ops left out of the
// delegates, latency) against the baseline's. Reads the report; derives only
// the differences to the baseline it shows. Numbers sort by value (SortRole).
class FixModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Module, Why, SnrAfter, Recovered, Size, OpsOutside, Latency, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;
    void setReport(std::shared_ptr<const FixReport> report);
    const std::shared_ptr<const FixReport>& report() const { return m_report; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const FixReport> m_report;
};

// "23.3 dB", "inf", "—".
QString fixDbText(const std::optional<double>& db);

} // namespace gapscope
