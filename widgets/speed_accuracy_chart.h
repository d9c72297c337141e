#pragma once

#include "core/compare/metric_catalog.h"
#include "core/session/session.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QComboBox;
class QLabel;
class QMouseEvent;

namespace gapscope {

// Speed against accuracy (issue 26): one point per timed op, its share of the
// run's time (RowLatency::share) across, its gap on the chosen metric up, the
// ops past the threshold in red. The slow op that is also the inaccurate one
// stands out in the worse corner. An op at ±∞ (exact: SNR ∞) is a triangle
// just past the finite values. Hover names the op; a click selects it.
class SpeedAccuracyChart : public QWidget {
    Q_OBJECT
public:
    explicit SpeedAccuracyChart(QWidget* parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    void updateSession(std::shared_ptr<const Session> snapshot);
    void setMetric(Metric metric); // one the chart offers (MetricInfo::charted)
    Metric metric() const;
    void setSelectedRow(std::optional<std::size_t> row);
    QCustomPlot* plot() const { return m_plot; }
    // The Comparison rows plotted, in the order of their points.
    const std::vector<std::size_t>& plotted() const { return m_rows; }

signals:
    void rowClicked(std::size_t row);

private:
    void rebuild();
    void showSelection();
    std::optional<std::size_t> rowNear(QMouseEvent* event) const;

    QCustomPlot* m_plot;
    QComboBox* m_metricBox;
    QLabel* m_note;
    QCPGraph *m_ok = nullptr, *m_past = nullptr, *m_edge = nullptr, *m_marker = nullptr;
    std::shared_ptr<const Session> m_session;
    std::vector<std::size_t> m_rows;
    std::vector<double> m_x, m_y; // the points, per m_rows
    std::optional<std::size_t> m_selected;
};

} // namespace gapscope
