#pragma once

#include "core/common/job_tracker.h"
#include "core/compare/tensor_slice.h"
#include "core/session/session.h"
#include "widgets/heatmap_plot.h"

#include <QImage>
#include <QWidget>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QLabel;

namespace gapscope {
class ElidedLabel;
}
class QSpinBox;
class QCheckBox;
class QComboBox;
class QGridLayout;
class QStackedWidget;

namespace gapscope {

struct TensorDetails;
class TapFieldsModel;
class TapFieldsView;

// Reference, runtime and difference heatmaps of the selected op: a 2-D slice
// (the last two dimensions; the others indexed by spin boxes), shared or separate
// colour scale, the value under the cursor for all three. Large slices are
// downsampled by striding so drawing never blocks on big tensors.
class TensorPanel : public QWidget {
    Q_OBJECT
public:
    explicit TensorPanel(QWidget* parent = nullptr);
    ~TensorPanel() override;

    void setSession(std::shared_ptr<const Session> session);
    // A newer snapshot of the same session: what the panel shows (plans and
    // values) is the same in every snapshot, so nothing is redrawn, but for a
    // row that was waiting for its metrics (awaitingMetrics) once they are there.
    void updateSession(std::shared_ptr<const Session> snapshot);
    // No more metrics will come (the load was cancelled): a row waiting for
    // them is drawn without them.
    void measuringStopped();
    // The row shown holds a big tensor not measured yet: its heatmaps wait for
    // its metrics rather than read the whole tensor on this thread.
    bool awaitingMetrics() const { return m_awaitingMetrics; }
    void setRow(std::optional<std::size_t> row);
    std::optional<std::size_t> row() const { return m_row; }
    QCustomPlot* plot(int which) const { return m_heatmaps[static_cast<std::size_t>(which)].plot; }
    // A reduced tap's fields (shown instead of the plots for a STATS tap's row).
    TapFieldsModel* fieldsModel() const;
    bool showsFields() const;
    // Values shown (reference, runtime, difference), row-major over the slice.
    const std::vector<double>& values(int which) const { return m_values[static_cast<std::size_t>(which)]; }
    // The device's stored (quantised) values of the slice; empty when not dequantised.
    const std::vector<double>& rawValues() const { return m_raw; }
    // The slices of the shown output (the non-displayed axes flattened), and choosing one.
    int sliceCount() const;
    void setSlice(int slice);

    static constexpr int kMaxSide = 256;
    static constexpr std::size_t kMaxSamples = 65536;
    // The details row: difference histogram, reference-vs-runtime scatter,
    // per-channel error, and the worst elements.
    QCustomPlot* histogram() const { return m_histogram; }
    QCustomPlot* scatter() const { return m_scatter; }
    QCustomPlot* channels() const { return m_channels; }
    QString worstElementsText() const;
    // "[row, column]  reference …" for the element under the cursor, or the slice description.
    QString hoverText() const;
    // What heatmap `which` (0 reference, 1 runtime, 2 difference) says in place
    // of a map it cannot draw; empty when it draws one.
    QString mapNote(int which) const;
    // Whether heatmap `which` shows a map (and its colour scale).
    bool mapShown(int which) const;
    // The big-tensor details of the selected op are still being computed
    // (detailsReady follows).
    bool detailsPending() const { return m_detailsPending; }
    // The six plots alone, in their grid, with the op's title above: no
    // controls, no selection. Renders from the plots' data, so the panel need
    // not be shown (the report renders from a panel of its own).
    QImage renderFigure(int plotWidth = 420, int plotHeight = 300) const;

signals:
    void detailsReady();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void arrangePlots();
    void refresh();
    // The three heatmaps from m_values (the reference and runtime on one scale
    // when shared, the difference symmetric about 0).
    void drawMaps();
    void refreshDetails(const ComparisonRow& row, std::size_t element);
    void showDetailsCleared();
    void applyDetails(const TensorDetails& details);

    // Up to this many elements the details are computed right away.
    static constexpr std::uint64_t kSynchronousElements = 1u << 14;
    // Big tensors' details: a newer selection cancels the running job.
    JobTracker m_details;
    bool m_detailsPending = false;
    bool m_awaitingMetrics = false;
    bool m_measuringStopped = false;
    void showValueAt(int which, const QPointF& pixel);

    std::shared_ptr<const Session> m_session;
    std::optional<std::size_t> m_row;
    // Where the shown slice lies in the reference tensor.
    TensorSlice m_slice;
    ElidedLabel* m_title;
    ElidedLabel* m_hover;
    QSpinBox* m_element;
    QSpinBox* m_leading;
    QLabel* m_sliceLabel = nullptr; // "slice of dim 0×1": what the spinner steps
    QString m_whyEmpty;             // why the runtime and difference maps are empty
    QCheckBox* m_shared;
    QGridLayout* m_grid = nullptr;
    bool m_oneRow = false;
    std::vector<HeatmapPlot> m_heatmaps;
    std::vector<std::vector<double>> m_values{3};
    std::vector<double> m_raw; // the device's stored values, when dequantised
    QCustomPlot* m_histogram;
    QCustomPlot* m_scatter;
    QCustomPlot* m_channels;
    ElidedLabel* m_worst;
    QComboBox* m_rowAxis;
    QComboBox* m_colAxis;
    QStackedWidget* m_pages; // the plots, or a reduced tap's fields
    TapFieldsView* m_fieldsView;
    QList<QWidget*> m_tensorControls; // hidden for a reduced tap: nothing to slice

public:
    // The displayed axes, for tests and for restoring a view.
    void setAxes(int rowAxis, int colAxis);
    int sliceWidth() const { return m_width; }
    int sliceHeight() const { return m_height; }
    int m_width = 0, m_height = 0, m_stride = 1;
};

} // namespace gapscope
