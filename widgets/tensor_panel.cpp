#include "widgets/tensor_panel.h"

#include "core/compare/element_reader.h"
#include "core/compare/pair_tensors.h"
#include "core/etdump/scalar_type.h"
#include "core/metrics/gap_metrics.h"
#include "widgets/bounded_text_delegate.h"
#include "widgets/elided_label.h"
#include "widgets/heatmap_plot.h"
#include "widgets/metric_colors.h"
#include "widgets/new_plot.h"
#include "widgets/plot_export.h"
#include "widgets/plot_grid.h"
#include "widgets/plot_title.h"
#include "widgets/post_if_current.h"
#include "widgets/tap_fields_view.h"
#include "widgets/tensor_details.h"
#include "widgets/tensor_details_plots.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCursor>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace gapscope {

namespace {

double referenceAt(const ElementPlan& plan, std::uint64_t flat) {
    double v = 0;
    plan.reference.decode(flat, 1, &v);
    return v;
}

} // namespace

TensorPanel::TensorPanel(QWidget* parent)
    : QWidget(parent), m_title(new ElidedLabel(this)), m_hover(new ElidedLabel(this)),
      m_element(new QSpinBox(this)), m_leading(new QSpinBox(this)),
      m_shared(new QCheckBox(tr("shared colour scale"), this)), m_histogram(newPlot(this)),
      m_scatter(newPlot(this)), m_channels(newPlot(this)), m_worst(new ElidedLabel(this)),
      m_rowAxis(new QComboBox(this)), m_colAxis(new QComboBox(this)), m_pages(new QStackedWidget(this)),
      m_fieldsView(new TapFieldsView(this)) {
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_title, 1);
    m_sliceLabel = new QLabel(tr("slice"), this);
    m_tensorControls = {new QLabel(tr("output"), this),
                        m_element,
                        new QLabel(tr("rows"), this),
                        m_rowAxis,
                        new QLabel(tr("columns"), this),
                        m_colAxis,
                        m_sliceLabel,
                        m_leading,
                        m_shared};
    for (QWidget* w : m_tensorControls)
        controls->addWidget(w);
    m_shared->setChecked(true);
    m_grid = new QGridLayout;
    auto* grid = m_grid;
    const char* const titles[] = {QT_TR_NOOP("reference (AOT)"), QT_TR_NOOP("runtime (device)"),
                                  QT_TR_NOOP("difference (ref − runtime)")};
    const char* const fileNames[] = {"reference-heatmap",    "runtime-heatmap",      "difference-heatmap",
                                     "difference-histogram", "runtime-vs-reference", "error-per-channel"};
    for (int i = 0; i < 3; ++i) {
        const HeatmapPlot h = makeHeatmapPlot(this, tr(titles[i]), i == 2, QString::fromLatin1(fileNames[i]));
        connect(h.plot, &QCustomPlot::mouseMove, this,
                [this, i](QMouseEvent* e) { showValueAt(i, e->position()); });
        m_heatmaps.push_back(h);
        grid->addWidget(h.plot, 0, i);
    }
    const char* const detailTitles[] = {QT_TR_NOOP("difference histogram"),
                                        QT_TR_NOOP("runtime vs reference"),
                                        QT_TR_NOOP("error per channel (MSE)")};
    QCustomPlot* details[] = {m_histogram, m_scatter, m_channels};
    for (int i = 0; i < 3; ++i) {
        details[i]->setMinimumSize(140, 80);
        details[i]->plotLayout()->insertRow(0);
        details[i]->plotLayout()->addElement(
            0, 0, new PlotTitle(details[i], tr(detailTitles[i]), QFont(font().family(), 9)));
        enablePlotExport(details[i], QString::fromLatin1(fileNames[3 + i]));
        grid->addWidget(details[i], 1, i);
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    // A tensor's plots, or a reduced tap's fields (a STATS tap is 13 numbers).
    auto* plots = new QWidget(this);
    plots->setLayout(grid);
    grid->setContentsMargins(0, 0, 0, 0);
    m_pages->addWidget(plots);
    m_pages->addWidget(m_fieldsView);
    layout->addWidget(m_pages, 1);
    // One line: the value under the cursor (or the slice), then the worst elements.
    auto* readouts = new QHBoxLayout;
    readouts->addWidget(m_hover, 2);
    readouts->addWidget(m_worst, 3);
    layout->addLayout(readouts);
    m_hover->setText(tr("Select an op to see its tensors."));
    connect(m_element, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
    connect(m_leading, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
    connect(m_rowAxis, qOverload<int>(&QComboBox::activated), this, [this] { refresh(); });
    connect(m_colAxis, qOverload<int>(&QComboBox::activated), this, [this] { refresh(); });
    connect(m_shared, &QCheckBox::toggled, this, [this] { refresh(); });
}

TensorPanel::~TensorPanel() {
    // A details job posts to this panel: it must end while the panel is whole.
    m_details.cancel();
    m_details.waitForIdle();
}

void TensorPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    arrangePlots();
}

void TensorPanel::arrangePlots() {
    // Short and wide (a laptop screen): the six plots in one row, each as tall
    // as the panel allows, instead of two rows too low to read.
    const bool oneRow = width() > 4 * height();
    if (oneRow != m_oneRow || m_grid->count() == 0) {
        m_oneRow = oneRow;
        QCustomPlot* const all[] = {m_heatmaps[0].plot, m_heatmaps[1].plot, m_heatmaps[2].plot,
                                    m_histogram,        m_scatter,          m_channels};
        for (int i = 0; i < 6; ++i) {
            m_grid->removeWidget(all[i]);
            m_grid->addWidget(all[i], oneRow ? 0 : i / 3, oneRow ? i : i % 3);
        }
    }
    // Fewer ticks on short axes, so their labels never overlap.
    for (QCustomPlot* p :
         {m_heatmaps[0].plot, m_heatmaps[1].plot, m_heatmaps[2].plot, m_histogram, m_scatter, m_channels}) {
        p->yAxis->ticker()->setTickCount(std::clamp(p->height() / 40, 2, 5));
        p->xAxis->ticker()->setTickCount(std::clamp(p->width() / 70, 2, 6));
    }
    for (const HeatmapPlot& h : m_heatmaps)
        if (h.map->colorScale())
            h.map->colorScale()->axis()->ticker()->setTickCount(std::clamp(h.plot->height() / 40, 2, 5));
}

TapFieldsModel* TensorPanel::fieldsModel() const {
    return m_fieldsView->model();
}

bool TensorPanel::showsFields() const {
    return m_pages->currentIndex() == 1;
}

void TensorPanel::setSession(std::shared_ptr<const Session> session) {
    m_session = std::move(session);
    m_row.reset();
    m_measuringStopped = false;
    refresh();
}

void TensorPanel::updateSession(std::shared_ptr<const Session> snapshot) {
    m_session = std::move(snapshot);
    if (!m_awaitingMetrics)
        return;
    const auto* rows = m_session && m_session->comparison ? &m_session->comparison->rows : nullptr;
    if (!rows || m_session->complete || !m_row || *m_row >= rows->size() || (*rows)[*m_row].measured)
        refresh();
}

void TensorPanel::measuringStopped() {
    m_measuringStopped = true;
    if (m_awaitingMetrics)
        refresh();
}

void TensorPanel::setRow(std::optional<std::size_t> row) {
    m_row = row;
    m_element->blockSignals(true);
    m_element->setValue(0);
    m_element->blockSignals(false);
    refresh();
}

void TensorPanel::refresh() {
    // A breakdown still computing for the row shown before would land on this one.
    m_details.cancel();
    m_detailsPending = false;
    m_awaitingMetrics = false;
    m_whyEmpty.clear();
    m_pages->setCurrentIndex(0); // the plots, unless the row is a reduced tap's
    m_fieldsView->setRow(nullptr);
    for (QWidget* w : m_tensorControls)
        w->setVisible(true);
    for (auto& v : m_values)
        v.clear();
    m_width = m_height = 0;
    const ComparisonRow* row = nullptr;
    if (m_session && m_session->comparison && m_row && *m_row < m_session->comparison->rows.size())
        row = &m_session->comparison->rows[*m_row];
    for (const auto& h : m_heatmaps) // hidden until there are values
        drawHeatmap(h, {}, 0, 0, 1, nullptr);
    for (auto* p : {m_histogram, m_scatter, m_channels}) {
        p->clearPlottables();
        p->clearItems();
    }
    m_worst->clear();
    if (!row) {
        m_title->setText(tr("No op selected"));
        for (const auto& h : m_heatmaps)
            h.plot->replot();
        showDetailsCleared();
        return;
    }
    const auto elements = static_cast<int>(std::max<std::size_t>(row->elementPlans().size(), 1));
    m_element->setRange(0, elements - 1);
    const auto element = static_cast<std::size_t>(m_element->value());
    QStringList ops;
    for (const auto& o : row->id().aot_ops)
        ops << QString::fromStdString(o);
    m_title->setText(tr("Row %1: %2").arg(row->index).arg(ops.join(QStringLiteral(", "))));

    // A reduced tap: its fields side by side, and what they prove (row->reason).
    if (row->tap && row->tap->fields) {
        m_pages->setCurrentIndex(1);
        m_fieldsView->setRow(row);
        for (QWidget* w : m_tensorControls) // nothing to slice
            w->setVisible(false);
        m_hover->setText(tr("%n statistic(s) of one op, not a tensor", "",
                            static_cast<int>(row->tap->fields->names.size())));
        showDetailsCleared();
        return;
    }
    const ElementPlan* plan = rowElement(*row, element).plan;
    if (!plan || plan->reference.is_scalar) {
        m_hover->setText(
            plan ? tr("The reference output is not a tensor.")
                 : tr("Nothing was compared for this op (%1).").arg(QString::fromStdString(row->reason)));
        for (const auto& h : m_heatmaps) {
            drawHeatmap(h, {}, 0, 0, 1, nullptr, plan ? tr("not a tensor") : tr("nothing compared"));
            h.plot->replot();
        }
        showDetailsCleared();
        return;
    }
    // Unmeasured, a big tensor is read as the metrics will read it only after a
    // pass over every element for NaNs: 30 ms on this thread for 4M elements,
    // the 4 GiB session's longest stall. It is drawn when its metrics arrive.
    if (!row->measured && !m_measuringStopped && !m_session->complete && plan->measurable() &&
        plan->reference.numel > kSynchronousElements) {
        m_awaitingMetrics = true;
        m_hover->setText(tr("Measuring this op: its tensors are shown once it is measured."));
        for (const auto& h : m_heatmaps) {
            drawHeatmap(h, {}, 0, 0, 1, nullptr, tr("measuring…"));
            h.plot->replot();
        }
        showDetailsCleared();
        return;
    }
    const auto reader = ElementReader::of(*plan, rowElement(*row, element).measured);
    // The slice: the two chosen axes (by default the last two) are displayed; the
    // other axes, in order, are flattened into the "slice" index.
    const auto& shape = plan->reference.shape();
    const int rank = static_cast<int>(shape.size());
    if (m_rowAxis->count() != std::max(rank, 1)) {
        for (QComboBox* box : {m_rowAxis, m_colAxis}) {
            box->blockSignals(true);
            box->clear();
            for (int d = 0; d < std::max(rank, 1); ++d)
                box->addItem(tr("dim %1").arg(d), d);
            box->blockSignals(false);
        }
        m_rowAxis->setCurrentIndex(std::max(rank - 2, 0));
        m_colAxis->setCurrentIndex(std::max(rank - 1, 0));
    }
    const TensorSlice slice =
        sliceTensor(shape, rank >= 2 ? m_rowAxis->currentIndex() : -1,
                    rank >= 1 ? m_colAxis->currentIndex() : -1, m_leading->value(), kMaxSide);
    const std::int64_t w = slice.cols, h = slice.rows;
    m_leading->blockSignals(true); // the slice is drawn now, not again through valueChanged
    m_leading->setRange(0, static_cast<int>(slice.slices - 1));
    m_leading->blockSignals(false);
    // Which dimensions the slice index steps: the ones not drawn, flattened in order.
    QStringList stepped;
    for (int d = 0; d < rank; ++d)
        if ((rank < 2 || d != m_rowAxis->currentIndex()) && d != m_colAxis->currentIndex())
            stepped << QString::number(d);
    m_leading->setToolTip(stepped.isEmpty()
                              ? tr("The slice shows the whole tensor")
                              : tr("Steps dimension%1 %2 (the ones not drawn, flattened in order): "
                                   "%3 slices")
                                    .arg(stepped.size() > 1 ? QStringLiteral("s") : QString(),
                                         stepped.join(QStringLiteral(", ")))
                                    .arg(slice.slices));
    m_sliceLabel->setText(stepped.isEmpty() ? tr("slice")
                                            : tr("slice of dim %1").arg(stepped.join(QChar(0x00D7))));
    m_slice = slice;
    m_stride = slice.stride;
    m_width = slice.width;
    m_height = slice.height;

    // Every value shown comes through the reader: what the metrics compared.
    const auto fill = [&](std::vector<double>& out, const auto& valueAt) {
        out.assign(static_cast<std::size_t>(m_width) * static_cast<std::size_t>(m_height), std::nan(""));
        for (int y = 0; y < m_height; ++y)
            for (int x = 0; x < m_width; ++x) {
                const auto flat = slice.flat(y, x);
                if (flat >= plan->reference.numel)
                    continue;
                out[static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width) +
                    static_cast<std::size_t>(x)] = valueAt(flat);
            }
    };
    fill(m_values[0],
         [&](std::uint64_t flat) { return reader ? reader->reference(flat) : referenceAt(*plan, flat); });
    m_raw.clear();
    if (!reader)
        m_whyEmpty = plan->measurable() ? tr("runtime shape differs") : tr("no runtime tensor");
    if (reader) {
        fill(m_values[1], [&](std::uint64_t flat) { return reader->runtime(flat); });
        // The hover shows the device's own value where the panel's differs from it:
        // a dequantised code, or a value nan_to_num converted.
        if (reader->dequantizes() || reader->rule().fixesRuntime())
            fill(m_raw, [&](std::uint64_t flat) { return reader->runtimeRaw(flat); });
        m_values[2].resize(m_values[0].size());
        for (std::size_t i = 0; i < m_values[0].size(); ++i)
            m_values[2][i] = m_values[0][i] - m_values[1][i];
    }

    drawMaps();
    for (const auto& map : m_heatmaps)
        map.plot->replot();
    refreshDetails(*row, element);
    const QString layout = plan->options.runtime_transform.axis_order
                               ? tr("; the device tensor is shown in the reference's layout")
                               : QString();
    m_hover->setText(
        reader ? tr("%1 × %2 slice%3%4")
                     .arg(h)
                     .arg(w)
                     .arg(m_stride > 1 ? tr(", one element in %1").arg(m_stride) : QString(), layout)
        : plan->measurable()
            ? tr("Runtime shape differs from the reference: only the reference is shown.")
            : tr("No runtime tensor data for this op (%1).").arg(QString::fromStdString(plan->reason)));
}

void TensorPanel::drawMaps() {
    double lo = 0, hi = 0;
    for (int which = 0; which < 2; ++which)
        for (double v : m_values[static_cast<std::size_t>(which)])
            if (std::isfinite(v))
                lo = std::min(lo, v), hi = std::max(hi, v);
    for (std::size_t which = 0; which < 3; ++which) {
        std::optional<QCPRange> range; // none for no values: the map and its scale are hidden
        if (which == 2) {
            // Symmetric about 0; identical tensors get a unit range instead of a degenerate one.
            const double m = maxAbs(m_values[2]);
            range = m > 0 ? QCPRange(-m, m) : QCPRange(-1, 1);
        } else if (m_shared->isChecked() && hi > lo) {
            range = QCPRange(lo, hi);
        }
        drawHeatmap(m_heatmaps[which], m_values[which], m_width, m_height, m_stride,
                    range ? &*range : nullptr, which == 0 ? QString() : m_whyEmpty);
    }
}

void TensorPanel::showValueAt(int which, const QPointF& pixel) {
    if (m_values[0].empty())
        return;
    double kx = 0, ky = 0;
    m_heatmaps[static_cast<std::size_t>(which)].map->pixelsToCoords(pixel, kx, ky);
    const int x = static_cast<int>(std::lround(kx / m_stride)),
              y = static_cast<int>(std::lround(ky / m_stride));
    if (x < 0 || y < 0 || x >= m_width || y >= m_height)
        return;
    const auto at =
        static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width) + static_cast<std::size_t>(x);
    auto value = [&](int i) {
        const auto& v = m_values[static_cast<std::size_t>(i)];
        return at < v.size() ? QString::number(v[at], 'g', 6) : QStringLiteral("—");
    };
    // A quantised device value is shown as stored, next to what it dequantises to.
    const QString raw = at < m_raw.size() ? tr(" (device %1)").arg(m_raw[at], 0, 'g', 6) : QString();
    // The element's full index in the reference tensor, as the worst elements give it.
    QStringList index;
    const auto coords = m_slice.coordinates(y, x);
    for (auto c : coords)
        index << QString::number(c);
    const QString text = tr("[%1]  reference %2   runtime %3%4   difference %5")
                             .arg(index.join(QStringLiteral(", ")), value(0), value(1), raw, value(2));
    m_hover->setText(text);
    // Also at the cursor: the line below the maps is cut on a narrow window.
    QToolTip::showText(QCursor::pos(), text.split(QStringLiteral("   ")).join(QLatin1Char('\n')),
                       m_heatmaps[static_cast<std::size_t>(which)].plot);
}

int TensorPanel::sliceCount() const {
    return m_leading->maximum() + 1;
}

void TensorPanel::setSlice(int slice) {
    m_leading->setValue(slice); // refreshes through valueChanged
}

QString TensorPanel::mapNote(int which) const {
    const auto& h = m_heatmaps[static_cast<std::size_t>(which)];
    return h.empty && h.empty->visible() ? h.empty->text() : QString();
}

bool TensorPanel::mapShown(int which) const {
    return m_heatmaps[static_cast<std::size_t>(which)].map->visible();
}

QString TensorPanel::hoverText() const {
    return m_hover->text();
}

void TensorPanel::setAxes(int rowAxis, int colAxis) {
    m_rowAxis->setCurrentIndex(rowAxis);
    m_colAxis->setCurrentIndex(colAxis);
    refresh();
}

QString TensorPanel::worstElementsText() const {
    return m_worst->text();
}

QImage TensorPanel::renderFigure(int plotWidth, int plotHeight) const {
    return renderPlotGrid(
        m_title->text(),
        {m_heatmaps[0].plot, m_heatmaps[1].plot, m_heatmaps[2].plot, m_histogram, m_scatter, m_channels}, 3,
        m_worst->text(), font(), QSize(plotWidth, plotHeight));
}

void TensorPanel::refreshDetails(const ComparisonRow& row, std::size_t element) {
    const ElementPlan* plan = rowElement(row, element).plan;
    m_details.cancel(); // a newer selection: the running job's result is stale
    m_detailsPending = false;
    const GapMetrics* measured = rowElement(row, element).measured;
    const auto reader = plan ? ElementReader::of(*plan, measured) : std::nullopt;
    if (!reader) {
        showDetailsCleared();
        return;
    }
    const std::uint64_t numel = reader->numel();
    if (numel <= kSynchronousElements) {
        applyDetails(computeDetails(*plan, kMaxSamples, nullptr, measured));
        return;
    }
    // Big tensors: a background job a newer selection cancels. The snapshot held
    // keeps the mapped bytes the plan points into, and the row's metrics, alive.
    m_worst->setText(tr("Computing the error breakdown of %1 elements…").arg(numel));
    m_detailsPending = true;
    m_details.start([this, session = m_session, p = *plan, measured](std::uint64_t generation,
                                                                     const std::atomic<bool>& cancelled) {
        auto details = std::make_shared<TensorDetails>(computeDetails(p, kMaxSamples, &cancelled, measured));
        postIfCurrent(this, m_details, generation, [this, details] {
            m_detailsPending = false;
            applyDetails(*details);
            emit detailsReady();
        });
    });
}

// Where no breakdown follows a selection, the plots refresh() cleared are drawn
// so: else they go on showing the op selected before, under this one's title.
void TensorPanel::showDetailsCleared() {
    for (auto* p : {m_histogram, m_scatter, m_channels})
        p->replot();
}

void TensorPanel::applyDetails(const TensorDetails& d) {
    drawTensorDetails(m_histogram, m_scatter, m_channels, d);
    QString worst =
        d.worst.isEmpty() ? QString() : tr("Worst elements: ") + d.worst.join(QStringLiteral("   ·   "));
    if (!d.nonFinite.isEmpty())
        worst = d.nonFinite + (worst.isEmpty() ? QString() : QStringLiteral("   ") + worst);
    m_worst->setText(worst, d.worst.join(QLatin1Char('\n')));
}

} // namespace gapscope
