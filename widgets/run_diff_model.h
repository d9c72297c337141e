#pragma once

#include "core/runs/run_diff.h"

#include <QAbstractTableModel>
#include <memory>

namespace gapscope {

// The A/B table: one row per pairing of two runs (RunMatch::pairs, rows of one
// run only included), each side's value of one metric, the difference and how
// much worse B is. Reads what core computed (metricDelta); numbers sort by
// value through SortRole.
class RunDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // TimeA, TimeB: each side's time (RunRow::time_ms); TimeRatio: B's over A's.
    enum Column { A, B, Basis, ValueA, ValueB, Delta, WorseBy, TimeA, TimeB, TimeRatio, Note, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, PairRole };

    explicit RunDiffModel(QObject* parent = nullptr);

    void setRuns(std::shared_ptr<const ComparedRuns> runs);
    const std::shared_ptr<const ComparedRuns>& runs() const { return m_runs; }
    void setMetric(Metric metric);
    Metric metric() const { return m_metric; }
    // How much worse B is on the metric for the pairing in `row`; nullopt for a
    // row of one run only, or no value.
    std::optional<double> worseBy(int row) const;
    bool paired(int row) const;
    // The number column `column` of `row` sorts by (NaN: no value), or nullopt
    // for a column sorted by its text: what SortRole holds, without a QVariant
    // (sorting 3,000 pairings compares some 36,000 times).
    std::optional<double> sortNumber(int row, int column) const;
    // The model row of pairing `pair`, or -1.
    int modelRow(std::size_t pair) const { return pair < m_deltas.size() ? static_cast<int>(pair) : -1; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Times {
        std::optional<double> a, b, ratio; // each side's time, B's over A's
    };
    Times times(const RowPairing& p) const;
    void computeDeltas();

    std::shared_ptr<const ComparedRuns> m_runs;
    Metric m_metric = Metric::Snr;
    std::vector<MetricDelta> m_deltas; // per pairing, for m_metric
};

} // namespace gapscope
