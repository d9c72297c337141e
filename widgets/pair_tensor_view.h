#pragma once

#include "core/common/job_tracker.h"
#include "core/compare/pair_tensors.h"
#include "core/compare/tensor_slice.h"
#include "core/session/session.h"
#include "widgets/heatmap_plot.h"

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QLabel;
class QSpinBox;

namespace gapscope {

class ElidedLabel;

// The A/B tab's tensor panel (docs/compare-runs.md): for the selected pairing,
// the reference, A's runtime tensor, B's runtime tensor and B − A side by side,
// one slice of the last two axes at a time, each side as its own metrics
// compared it (dequantised, in the reference's layout). Below, B − A over the
// whole tensor (max, RMS, how many elements differ) and whether the two
// captures hold the same reference. When the two rows are not one tensor (a row
// of one run only, shapes that differ, nothing compared) it says why instead.
class PairTensorView : public QWidget {
    Q_OBJECT
public:
    explicit PairTensorView(QWidget* parent = nullptr);
    ~PairTensorView() override;

    // The two sessions and the pairing's rows in them (either may be empty).
    void setPair(std::shared_ptr<const Session> a, std::optional<std::size_t> rowA,
                 std::shared_ptr<const Session> b, std::optional<std::size_t> rowB);
    void clear(const QString& why);

    enum Map { Reference, RuntimeA, RuntimeB, Difference };
    // The values shown, row-major over the slice (NaN where there is none).
    const std::vector<double>& values(Map which) const { return m_values[which]; }
    QCustomPlot* plot(Map which) const { return m_maps[which].plot; }
    const TensorSlice& slice() const { return m_slice; }
    int sliceCount() const;
    void setSlice(int slice);
    QString title() const;
    // Why the tensors cannot be compared, or B − A over the whole tensor.
    QString summary() const;
    QString hoverText() const;
    // The whole-tensor difference is still being computed (differenceReady follows).
    bool pending() const { return m_pending; }

    static constexpr int kMaxSide = 256;

signals:
    void differenceReady();

private:
    void refresh();
    void showValueAt(int which, const QPointF& pixel);
    void showDifference(const std::optional<PairDifference>& d);

    std::shared_ptr<const Session> m_a, m_b; // hold the mapped bytes the readers point into
    const ComparisonRow* m_rowA = nullptr;
    const ComparisonRow* m_rowB = nullptr;
    PairTensors m_pair;
    TensorSlice m_slice;
    ElidedLabel* m_title;
    ElidedLabel* m_hover;
    QLabel* m_summary;
    QSpinBox* m_leading;
    QCheckBox* m_shared;
    std::vector<HeatmapPlot> m_maps;
    std::vector<double> m_values[4];
    JobTracker m_jobs; // the whole-tensor difference of big tensors; a newer pairing cancels it
    bool m_pending = false;

    // Up to this many elements the difference is computed right away.
    static constexpr std::uint64_t kSynchronousElements = 1u << 16;
};

} // namespace gapscope
