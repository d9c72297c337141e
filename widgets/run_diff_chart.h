#pragma once

#include "core/runs/run_diff.h"

#include <QVector>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QMouseEvent;

namespace gapscope {

// The A/B gap chart: both runs' values of one metric over the paired rows in
// graph order (A and B as lines), and the difference B − A as bars on the right
// axis. A click selects the nearest pairing.
class RunDiffChart : public QWidget {
    Q_OBJECT
public:
    explicit RunDiffChart(QWidget* parent = nullptr);

    void setRuns(std::shared_ptr<const ComparedRuns> runs, Metric metric);
    void setSelectedPair(std::optional<std::size_t> pair);
    QCustomPlot* plot() const { return m_plot; }
    // The pairings plotted, left to right (RunMatch::pairs indices).
    const std::vector<std::size_t>& plotted() const { return m_plotted; }

signals:
    void pairClicked(std::size_t pair);

private:
    void rebuild();
    void markSelected();

    QCustomPlot* m_plot;
    std::shared_ptr<const ComparedRuns> m_runs;
    Metric m_metric = Metric::Snr;
    std::vector<std::size_t> m_plotted;
    std::optional<std::size_t> m_selected;
    // The values plotted for A and B (the lines), and the selection's mark.
    QVector<double> m_a, m_b;
    QCPGraph* m_mark = nullptr;
};

} // namespace gapscope
