#pragma once

#include "core/runs/run_diff.h"

#include <QWidget>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QMenu;
class QPushButton;
class QTableView;

namespace gapscope {

class FrozenColumnsTableView;
class PairTensorView;
class RunDiffChart;
class RunDiffModel;
class RunDiffProxy;

// The A/B page: two runs side by side (docs/compare-runs.md). Above, what was
// compared and how the rows paired; the metric, a "B worse by more than"
// filter and whether rows of one run only are listed; the table of pairings
// (sortable, ranked by how much worse B is); below, the chart of both series
// and their difference; below both, the selected pairing's tensors. Selecting a pairing in the table or the
// chart selects it in both and says so (pairSelected).
class RunDiffView : public QWidget {
    Q_OBJECT
public:
    explicit RunDiffView(QWidget* parent = nullptr);

    void setRuns(std::shared_ptr<const ComparedRuns> runs);
    // Nothing compared (yet): why, in the page's place.
    void setMessage(const QString& text);
    void setMetric(Metric metric);
    void setWorseThan(std::optional<double> margin);
    void selectPair(std::optional<std::size_t> pair);

    RunDiffModel* model() const { return m_model; }
    RunDiffProxy* proxy() const { return m_proxy; }
    FrozenColumnsTableView* table() const { return m_table; }
    RunDiffChart* chart() const { return m_chart; }
    // The selected pairing's tensors: the window hands it both sessions (pairSelected).
    PairTensorView* tensors() const { return m_tensors; }
    QLabel* summary() const { return m_summary; }
    // What makes the comparison doubtful: A and B against different kinds of
    // reference, of different programs, pairs that are not one tensor. Hidden when nothing.
    QLabel* warning() const { return m_warning; }
    QPushButton* swapButton() const { return m_swap; }
    // A row's menu (copy, export), as it would open (tests).
    QMenu* rowMenu(const QModelIndex& index);

    // The formats the A/B result is exported in (exportRequested).
    enum class ExportFormat { Csv, Json, Markdown };

signals:
    // A pairing was selected: by the user (pairSelected, which selects A's op
    // everywhere), or for them when the runs are shown (pairShown alone: A's
    // selection stays theirs). pairShown comes first, for both.
    void pairShown(std::size_t pair);
    void pairSelected(std::size_t pair);
    void metricChanged(gapscope::Metric metric);
    // Swap A and B: B's files become the window's session, A's the other.
    void swapRequested();
    void exportRequested(gapscope::RunDiffView::ExportFormat format);

private:
    void showSummary();

    RunDiffModel* m_model;
    RunDiffProxy* m_proxy;
    FrozenColumnsTableView* m_table;
    RunDiffChart* m_chart;
    PairTensorView* m_tensors;
    QLabel* m_summary;
    QLabel* m_warning;
    QPushButton* m_swap;
    QMenu* m_rowMenu = nullptr;
    QComboBox* m_metric;
    QCheckBox* m_worseOnly;
    QDoubleSpinBox* m_margin;
    QCheckBox* m_unpaired;
    bool m_selecting = false;
    bool m_autoSelecting = false; // setRuns selects the worst pairing: shown, not the user's choice
};

} // namespace gapscope
