#pragma once

#include "core/compare/metric_catalog.h"
#include "core/compare/stage_ladder.h"
#include "core/session/session.h"

#include <QAbstractTableModel>
#include <memory>

namespace gapscope {

// One row per compared op (Comparison::rows), ExecuTorch's columns plus ours.
// Numbers sort by value through SortRole, never by their text.
class OpTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The columns: the op's own, then one per metric the catalog puts in the
    // table (MetricInfo::tabled, in catalog order), then the findings' and the status.
    enum Column { Index, Handles, AotOps, RuntimeOps, Shape, Dtype, FirstMetric };
    enum class Tail {
        Time,  // the op's median time over the runs (RowLatency::p50), in the profile's unit
        Share, // that time's share of Method::execute's, in %
        Gain,  // how much the op multiplies the error it receives, in dB (error introducers)
        Added, // the rel. L2 the op adds over its worst producer: the introducers' ranking
        // The stage ladder's step that loses the most on the op (StageLadder,
        // issue 59); sorted by that step's SNR, the most lost first. Empty without a ladder.
        LostMost,
        Status
    };
    static int column(Metric metric); // -1: not a column of the table
    static int column(Tail tail);
    static int columns(); // how many there are
    static std::optional<Metric> metricOf(int column);
    static std::optional<Tail> tailOf(int column);
    enum Role { SortRole = Qt::UserRole + 1, RowIndexRole, MetricNameRole };

    explicit OpTableModel(QObject* parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    // A newer snapshot of the same session: the same rows, rows [first, last]
    // measured since (or, by default, the findings in). Those rows are
    // repainted and re-sorted; the model is not reset.
    void updateSession(std::shared_ptr<const Session> snapshot, std::size_t first = 0,
                       std::size_t last = SIZE_MAX);
    // The stage ladder of the session shown (null: none): the LostMost column.
    // Taken only when it is of the session's method and run.
    void setLadder(std::shared_ptr<const StageLadder> ladder);
    const StageLadder* ladder() const { return m_ladder.get(); }
    // Loading stopped before every row was measured: pending rows say so.
    void setMeasuringStopped(bool stopped);
    const ComparisonRow* comparisonRow(int row) const;
    // The row where the error grows the most (Introducer::gain_db), once the findings are in.
    std::optional<std::size_t> topIntroducer() const { return m_topIntroducer; }
    // The model row holding Comparison row `index`, or -1.
    int modelRow(std::size_t index) const;
    // What SortRole gives for a numeric column (metrics, gain, index, status),
    // without a QVariant; nullopt for text columns, which sort by their text.
    std::optional<double> sortKey(int row, int column) const;
    static bool numericColumn(int column);
    // Changes whenever the rows' numbers may have (a new session or snapshot):
    // sort keys cached under an older value are stale.
    quint64 generation() const { return m_generation; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void indexIntroducers();
    const RowLatency* latencyOf(const ComparisonRow& r) const;
    QVariant latencyData(const ComparisonRow& r, Tail tail, int role) const;
    void repaint(std::size_t first, std::size_t last);

    const LadderRow* ladderRow(const ComparisonRow& r) const;

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const StageLadder> m_ladder;
    quint64 m_generation = 0;
    bool m_measuringStopped = false;
    // By Comparison row index. Copies: the session's list is replaced when the findings arrive.
    std::vector<std::optional<Introducer>> m_introducerOfRow;
    std::optional<std::size_t> m_topIntroducer;
};

} // namespace gapscope
