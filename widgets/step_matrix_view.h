#pragma once

#include "core/runs/step_matrix.h"
#include "core/session/session_steps.h"

#include <QWidget>
#include <memory>
#include <optional>

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QCPColorMap;
class QLabel;

namespace gapscope {

// The steps view (docs/compare-runs.md, "Decode steps"): a decode loop's ops ×
// steps as a heatmap of one metric, each op's drift over the steps as a line
// (the selected op's bold), and where the drift first crosses the threshold
// and is worst. A click on a cell asks for that op at that step (cellClicked).
// With B's steps too (a decode loop compared with another, setStepsB) it shows
// A's matrix, B's, or how much worse B is than A per op and step.
class StepMatrixView : public QWidget {
    Q_OBJECT
public:
    explicit StepMatrixView(QWidget* parent = nullptr);

    void setSteps(std::shared_ptr<const SessionSteps> steps, const MetricThreshold& threshold);
    void setMessage(const QString& text);
    // B's decode loop (the A/B comparison's B), or none.
    void setStepsB(std::shared_ptr<const SessionSteps> steps);
    enum Show { ShowA, ShowB, ShowDifference };
    void setShow(Show show);
    Show shown() const { return m_show; }
    // ShowDifference: the margin past which B counts as worse (the metric's unit).
    void setMargin(double margin);
    void setMetric(Metric metric);
    // The op and step shown as selected (the session's run and row).
    void setSelected(std::optional<std::size_t> op, std::optional<std::size_t> step);
    // The op of the matrix holding row `row` at `step`, if any.
    std::optional<std::size_t> opOfRow(std::size_t step, std::size_t row) const;

    const StepMatrix& matrix() const { return m_matrix; }
    const std::shared_ptr<const SessionSteps>& steps() const { return m_steps; }
    const std::shared_ptr<const SessionSteps>& stepsB() const { return m_stepsB; }
    QComboBox* showBox() const { return m_showBox; }
    QLabel* summary() const { return m_summary; }
    QCustomPlot* heatmap() const { return m_heat; }
    QCustomPlot* drift() const { return m_drift; }

signals:
    void cellClicked(std::size_t op, std::size_t step);

protected:
    // The op names are spaced for the heatmap's height: laid out again.
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void draw();

    QString summaryText() const;

    std::shared_ptr<const SessionSteps> m_steps, m_stepsB;
    // Step k of A paired with step k of B, for the difference; made when first shown.
    std::optional<std::vector<RunMatch>> m_stepMatches;
    Show m_show = ShowA;
    double m_margin = 3;
    MetricThreshold m_threshold;
    Metric m_metric = Metric::Snr;
    StepMatrix m_matrix;
    std::optional<std::size_t> m_op, m_step;
    QLabel* m_summary;
    QComboBox* m_metricBox;
    QCustomPlot* m_heat;
    QCPColorMap* m_map;
    QCustomPlot* m_drift;
    QComboBox* m_showBox;
    QDoubleSpinBox* m_marginBox;
};

} // namespace gapscope
