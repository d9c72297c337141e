#pragma once

#include "core/compare/metric_catalog.h"
#include "core/compare/row_name.h"
#include "core/compare/stage_ladder.h"
#include "core/session/session.h"

#include <QElapsedTimer>
#include <QPointF>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QComboBox;
class QTimer;
class QMouseEvent;

namespace gapscope {

// The chosen metric per op in execution order (log axis when every value is
// positive), the threshold line, the first-divergence marker, the selected op;
// hover shows op names, a click selects, wheel/drag zoom and pan, double-click resets.
class GapChart : public QWidget {
    Q_OBJECT
public:
    explicit GapChart(QWidget* parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    // A newer snapshot of the same session: rebuilt, the selection kept.
    void updateSession(std::shared_ptr<const Session> snapshot);
    // The stage ladder of the session shown (issue 59): on SNR, one curve per
    // stage, each stage against the first (null: none). Dropped with the session.
    void setLadder(std::shared_ptr<const StageLadder> ladder);
    void setMetric(Metric metric); // one the chart offers (MetricInfo::charted); others are ignored
    Metric metric() const;
    void setSelectedRow(std::optional<std::size_t> row);
    std::optional<std::size_t> selectedRow() const { return m_selected; }
    QCustomPlot* plot() const { return m_plot; }
    // Execution-order position → Comparison row index.
    const std::vector<std::size_t>& order() const { return m_order; }

signals:
    void rowClicked(std::size_t row);
    // The user (or setMetric) chose another metric to plot.
    void metricChanged(gapscope::Metric metric);

protected:
    // The op labels depend on the plot's size: rebuilt once resizing pauses.
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    // The ladder's curves (setLadder), on the SNR axis.
    void addLadderCurves(bool logAxis);
    // The selected op's marker; `markerOnly`: nothing else changed, so only
    // the marker's layer is drawn again.
    void showSelection(bool markerOnly = false);
    // A vertical line at `row`'s position in execution order, labelled at labelY
    // (a fraction of the plot's height from its top).
    // Op names as the x axis's tick labels, as many as fit.
    void setOpTicks(const SharedBlocks<ComparisonRow>& rows);
    // The threshold as a dashed line at `limit`, labelled.
    void addThresholdLine(double limit, const QString& threshold);
    void addRowMarker(std::size_t row, const QString& label, const QColor& lineColor, const QColor& textColor,
                      Qt::PenStyle style, double labelY);
    std::optional<std::size_t> rowNear(QMouseEvent* event) const;

    QCustomPlot* m_plot;
    QComboBox* m_metricBox;
    QTimer* m_resized;
    QCPGraph* m_graph = nullptr;
    QCPGraph* m_marker = nullptr;
    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const StageLadder> m_ladder;
    std::vector<std::size_t> m_order;
    std::optional<std::size_t> m_selected;
    std::optional<QPointF> m_pressAt;         // a left press not yet released
    std::optional<std::size_t> m_beforeClick; // the selection before the last click
    QElapsedTimer m_clickedAt;                // when that click selected
};

} // namespace gapscope
