#include "widgets/pair_tensor_view.h"

#include "core/compare/row_name.h"
#include "widgets/elided_label.h"
#include "widgets/post_if_current.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace gapscope {

namespace {

QString coordinatesText(const std::vector<std::int64_t>& coords) {
    QStringList parts;
    for (auto c : coords)
        parts << QString::number(c);
    return QStringLiteral("[") + parts.join(QStringLiteral(", ")) + QStringLiteral("]");
}

QString rowTitle(const char* side, const ComparisonRow* row) {
    if (!row)
        return PairTensorView::tr("%1: no row").arg(QLatin1String(side));
    return PairTensorView::tr("%1 row %2 (%3)")
        .arg(QLatin1String(side))
        .arg(row->index)
        .arg(QString::fromStdString(displayOpName(row->id().aot_ops)));
}

} // namespace

PairTensorView::PairTensorView(QWidget* parent)
    : QWidget(parent), m_title(new ElidedLabel(this)), m_hover(new ElidedLabel(this)),
      m_summary(new QLabel(this)), m_leading(new QSpinBox(this)),
      m_shared(new QCheckBox(tr("shared colour scale"), this)) {
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_title, 1);
    controls->addWidget(new QLabel(tr("slice"), this));
    controls->addWidget(m_leading);
    controls->addWidget(m_shared);
    m_shared->setChecked(true);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_shared->setToolTip(tr("The reference and both runtimes on one colour scale"));
    auto* grid = new QGridLayout;
    const char* const titles[] = {QT_TR_NOOP("reference (A's capture)"), QT_TR_NOOP("A runtime"),
                                  QT_TR_NOOP("B runtime"), QT_TR_NOOP("B − A runtime")};
    const char* const fileNames[] = {"ab-reference-heatmap", "ab-runtime-a-heatmap", "ab-runtime-b-heatmap",
                                     "ab-difference-heatmap"};
    for (int i = 0; i < 4; ++i) {
        const HeatmapPlot h =
            makeHeatmapPlot(this, tr(titles[i]), i == Difference, QString::fromLatin1(fileNames[i]));
        connect(h.plot, &QCustomPlot::mouseMove, this,
                [this, i](QMouseEvent* e) { showValueAt(i, e->position()); });
        m_maps.push_back(h);
        grid->addWidget(h.plot, 0, i);
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(grid, 1);
    layout->addWidget(m_hover);
    layout->addWidget(m_summary);
    connect(m_leading, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
    connect(m_shared, &QCheckBox::toggled, this, [this] { refresh(); });
    clear(tr("Select a pairing to see both runs' tensors."));
}

PairTensorView::~PairTensorView() {
    // A difference job posts to this view: it must end while the view is whole.
    m_jobs.cancel();
    m_jobs.waitForIdle();
}

void PairTensorView::clear(const QString& why) {
    m_jobs.cancel();
    m_pending = false;
    m_a.reset();
    m_b.reset();
    m_rowA = m_rowB = nullptr;
    m_pair = {};
    m_title->setText(tr("No pairing selected"));
    m_summary->setText(why);
    refresh();
}

void PairTensorView::setPair(std::shared_ptr<const Session> a, std::optional<std::size_t> rowA,
                             std::shared_ptr<const Session> b, std::optional<std::size_t> rowB) {
    const auto rowOf = [](const std::shared_ptr<const Session>& s, std::optional<std::size_t> row) {
        return s && s->comparison && row && *row < s->comparison->rows.size() ? &s->comparison->rows[*row]
                                                                              : nullptr;
    };
    m_jobs.cancel(); // a newer pairing: the running job's result is stale
    m_pending = false;
    m_a = std::move(a);
    m_b = std::move(b);
    m_rowA = rowOf(m_a, rowA);
    m_rowB = rowOf(m_b, rowB);
    m_pair = pairTensors(m_rowA, m_rowB);
    m_title->setText(rowTitle("A", m_rowA) + QStringLiteral("  ↔  ") + rowTitle("B", m_rowB));
    m_leading->blockSignals(true);
    m_leading->setValue(0);
    m_leading->blockSignals(false);
    refresh();
    if (!m_pair.problem.empty()) {
        m_summary->setText(QString::fromStdString(m_pair.problem));
        return;
    }
    const std::uint64_t numel = m_pair.a->numel();
    if (numel <= kSynchronousElements) {
        showDifference(measurePairDifference(m_pair));
        return;
    }
    // Big tensors: a background job a newer pairing cancels. The sessions held
    // keep the bytes the readers point into alive.
    m_summary->setText(tr("Comparing B with A over %1 elements…").arg(numel));
    m_pending = true;
    m_jobs.start([this, a = m_a, b = m_b, pair = m_pair](std::uint64_t generation,
                                                         const std::atomic<bool>& cancelled) {
        auto d = std::make_shared<std::optional<PairDifference>>(measurePairDifference(pair, &cancelled));
        if (!*d)
            return;
        postIfCurrent(this, m_jobs, generation, [this, d] {
            m_pending = false;
            showDifference(*d);
        });
    });
}

void PairTensorView::showDifference(const std::optional<PairDifference>& d) {
    if (!d)
        return;
    const auto at = coordinatesText(unravelIndex(d->max_at, m_pair.shape));
    QString text = d->differing == 0
                       ? tr("B − A over all %1 elements: identical").arg(d->elements)
                       : tr("B − A over all %1 elements: %2 differ; max |B − A| %3 at %4; RMS %5")
                             .arg(d->elements)
                             .arg(d->differing)
                             .arg(d->max_abs, 0, 'g', 4)
                             .arg(at)
                             .arg(d->rms, 0, 'g', 4);
    if (d->non_finite)
        text += tr("; %1 not finite on one side, left out").arg(d->non_finite);
    text += d->reference_max_abs == 0
                ? tr(".  Both captures hold the same reference.")
                : tr(".  B's reference differs from A's by up to %1: the two captures are of other inputs "
                     "(another step) or another model (a quantised program's own graph, a fold, another "
                     "checkpoint), so part of B − A is not the backends'.")
                      .arg(d->reference_max_abs, 0, 'g', 4);
    m_summary->setText(text);
    emit differenceReady();
}

void PairTensorView::refresh() {
    for (auto& v : m_values)
        v.clear();
    const ElementReader* ref = m_pair.a ? &*m_pair.a : (m_pair.b ? &*m_pair.b : nullptr);
    if (!ref) {
        m_slice = {};
        m_leading->setRange(0, 0);
        for (const auto& h : m_maps) {
            drawHeatmap(h, {}, 0, 0, 1, nullptr);
            h.plot->replot(QCustomPlot::rpQueuedReplot);
        }
        m_hover->setText(QString());
        return;
    }
    // One side alone, or two that are not one tensor: each shows its own
    // runtime over A's (or B's) slice where the shapes allow; no difference.
    m_slice = sliceLastTwo(ref->shape(), m_leading->value(), kMaxSide);
    m_leading->blockSignals(true);
    m_leading->setRange(0, static_cast<int>(m_slice.slices - 1));
    m_leading->blockSignals(false);
    const auto cells = static_cast<std::size_t>(m_slice.width) * static_cast<std::size_t>(m_slice.height);
    const auto fill = [&](std::vector<double>& out, const ElementReader& r, auto valueAt) {
        out.assign(cells, std::nan(""));
        if (r.numel() != ref->numel() || (!m_pair.problem.empty() && r.shape() != ref->shape()))
            return; // not one tensor: nothing to show in this slice's places
        for (int y = 0; y < m_slice.height; ++y)
            for (int x = 0; x < m_slice.width; ++x) {
                const auto flat = m_slice.flat(y, x);
                if (flat < r.numel())
                    out[static_cast<std::size_t>(y) * static_cast<std::size_t>(m_slice.width) +
                        static_cast<std::size_t>(x)] = valueAt(r, flat);
            }
    };
    fill(m_values[Reference], *ref, [](const ElementReader& r, std::uint64_t i) { return r.reference(i); });
    if (m_pair.a)
        fill(m_values[RuntimeA], *m_pair.a,
             [](const ElementReader& r, std::uint64_t i) { return r.runtime(i); });
    if (m_pair.b)
        fill(m_values[RuntimeB], *m_pair.b,
             [](const ElementReader& r, std::uint64_t i) { return r.runtime(i); });
    if (m_pair.problem.empty()) {
        m_values[Difference].resize(cells);
        for (std::size_t i = 0; i < cells; ++i)
            m_values[Difference][i] = m_values[RuntimeB][i] - m_values[RuntimeA][i];
    }
    double lo = 0, hi = 0;
    for (const Map which : {Reference, RuntimeA, RuntimeB})
        for (double v : m_values[which])
            if (std::isfinite(v))
                lo = std::min(lo, v), hi = std::max(hi, v);
    const QCPRange shared(lo, hi);
    const double m = maxAbs(m_values[Difference]);
    const QCPRange symmetric = m > 0 ? QCPRange(-m, m) : QCPRange(-1, 1);
    for (int which = 0; which < 4; ++which) {
        const QCPRange* range = which == Difference                  ? &symmetric
                                : (m_shared->isChecked() && hi > lo) ? &shared
                                                                     : nullptr;
        drawHeatmap(m_maps[static_cast<std::size_t>(which)], m_values[which], m_slice.width, m_slice.height,
                    m_slice.stride, range);
        // Drawn when the event loop is back: a pairing chosen in the A/B
        // table's handler drew four maps inside it (a 25 ms stall).
        m_maps[static_cast<std::size_t>(which)].plot->replot(QCustomPlot::rpQueuedReplot);
    }
    m_hover->setText(
        tr("%1 × %2 slice %3 of %4%5")
            .arg(m_slice.rows)
            .arg(m_slice.cols)
            .arg(m_leading->value())
            .arg(m_slice.slices)
            .arg(m_slice.stride > 1 ? tr(", one element in %1").arg(m_slice.stride) : QString()));
}

void PairTensorView::showValueAt(int which, const QPointF& pixel) {
    if (m_values[Reference].empty())
        return;
    double kx = 0, ky = 0;
    m_maps[static_cast<std::size_t>(which)].map->pixelsToCoords(pixel, kx, ky);
    const int x = static_cast<int>(std::lround(kx / m_slice.stride)),
              y = static_cast<int>(std::lround(ky / m_slice.stride));
    if (x < 0 || y < 0 || x >= m_slice.width || y >= m_slice.height)
        return;
    const auto at =
        static_cast<std::size_t>(y) * static_cast<std::size_t>(m_slice.width) + static_cast<std::size_t>(x);
    auto value = [&](Map i) {
        const auto& v = m_values[i];
        return at < v.size() && !std::isnan(v[at]) ? QString::number(v[at], 'g', 6) : QStringLiteral("—");
    };
    m_hover->setText(tr("%1  reference %2   A %3   B %4   B − A %5")
                         .arg(coordinatesText(m_slice.coordinates(y, x)), value(Reference), value(RuntimeA),
                              value(RuntimeB), value(Difference)));
}

int PairTensorView::sliceCount() const {
    return m_leading->maximum() + 1;
}

void PairTensorView::setSlice(int slice) {
    m_leading->setValue(slice); // refreshes through valueChanged
}

QString PairTensorView::title() const {
    return m_title->text();
}

QString PairTensorView::summary() const {
    return m_summary->text();
}

QString PairTensorView::hoverText() const {
    return m_hover->text();
}

} // namespace gapscope
