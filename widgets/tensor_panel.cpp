#include "widgets/tensor_panel.h"

#include "core/etdump/element_decode.h"
#include "core/etdump/scalar_type.h"

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

struct View {
    ScalarType type;
    ByteSpan bytes;
    std::vector<std::int64_t> shape;
    std::optional<std::pair<double, std::int64_t>> dequant; // scale, zero point
};

std::optional<View> referenceView(const Session& s, const ComparisonRow& row, std::size_t element) {
    const auto& rec = *row.pair->aot.record;
    if (element >= rec.outputs.size())
        return std::nullopt;
    const auto* t = s.capture->tensor(rec.outputs[element]);
    if (!t)
        return std::nullopt;
    return View{t->scalar_type, s.capture->file->bytes(*t), t->shape, std::nullopt};
}

std::optional<View> runtimeView(const Session& s, const ComparisonRow& row, std::size_t element) {
    const RuntimeValue& v = row.pair->runtime_value;
    const RuntimeValue* item = v.isSequence() ? (element < v.items.size() ? &v.items[element] : nullptr) : &v;
    if (!item || !item->isTensor() || item->tensor->data != TensorData::Present)
        return std::nullopt;
    const Tensor& t = *item->tensor;
    View view{static_cast<ScalarType>(t.scalar_type), s.dump->tensorBytes(t), t.sizes, std::nullopt};
    const auto& rec = *row.pair->aot.record;
    if (row.dequantized && element < rec.quantization.size() && rec.quantization[element] &&
        !rec.quantization[element]->per_channel)
        view.dequant =
            std::make_pair(rec.quantization[element]->scale[0], rec.quantization[element]->zero_point[0]);
    return view;
}

// Perceptually uniform for values; blue-white-red around zero for differences.
QCPColorGradient viridisGradient() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
    g.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    g.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
    g.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    g.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
    return g;
}

QCPColorGradient divergingGradient() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(33, 102, 172));
    g.setColorStopAt(0.5, QColor(247, 247, 247));
    g.setColorStopAt(1.0, QColor(178, 24, 43));
    return g;
}

} // namespace

TensorPanel::TensorPanel(QWidget* parent)
    : QWidget(parent), m_title(new QLabel(this)), m_hover(new QLabel(this)), m_element(new QSpinBox(this)),
      m_leading(new QSpinBox(this)), m_shared(new QCheckBox(tr("shared colour scale"), this)) {
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_title, 1);
    controls->addWidget(new QLabel(tr("output"), this));
    controls->addWidget(m_element);
    controls->addWidget(new QLabel(tr("slice"), this));
    controls->addWidget(m_leading);
    controls->addWidget(m_shared);
    m_shared->setChecked(true);
    auto* grid = new QGridLayout;
    const char* const titles[] = {"reference (AOT)", "runtime (device)", "difference (ref − runtime)"};
    for (int i = 0; i < 3; ++i) {
        auto* plot = new QCustomPlot(this);
        plot->setMinimumSize(160, 140);
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0,
                                       new QCPTextElement(plot, tr(titles[i]), QFont(font().family(), 9)));
        auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
        auto* scale = new QCPColorScale(plot);
        plot->plotLayout()->addElement(1, 1, scale);
        map->setColorScale(scale);
        map->setGradient(i == 2 ? divergingGradient() : viridisGradient());
        map->setInterpolate(false); // one cell per element: quantisation steps stay visible
        plot->yAxis->setRangeReversed(true);
        plot->setMouseTracking(true);
        connect(plot, &QCustomPlot::mouseMove, this,
                [this, i](QMouseEvent* e) { showValueAt(i, e->position()); });
        m_plots.push_back(plot);
        m_maps.push_back(map);
        grid->addWidget(plot, 0, i);
    }
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(grid, 1);
    layout->addWidget(m_hover);
    m_hover->setText(tr("Select an op to see its tensors."));
    connect(m_element, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
    connect(m_leading, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
    connect(m_shared, &QCheckBox::toggled, this, [this] { refresh(); });
}

void TensorPanel::setSession(std::shared_ptr<const Session> session) {
    m_session = std::move(session);
    m_row.reset();
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
    for (auto& v : m_values)
        v.clear();
    m_width = m_height = 0;
    const ComparisonRow* row = nullptr;
    if (m_session && m_session->comparison && m_row && *m_row < m_session->comparison->rows.size())
        row = &m_session->comparison->rows[*m_row];
    for (auto* map : m_maps)
        map->data()->setSize(1, 1), map->data()->fill(0);
    if (!row) {
        m_title->setText(tr("No op selected"));
        for (auto* p : m_plots)
            p->replot();
        return;
    }
    const auto elements = static_cast<int>(std::max<std::size_t>(row->pair->aot.record->outputs.size(), 1));
    m_element->setRange(0, elements - 1);
    const auto element = static_cast<std::size_t>(m_element->value());
    QStringList ops;
    for (const auto& o : row->aot_ops)
        ops << QString::fromStdString(o);
    m_title->setText(tr("Row %1: %2").arg(row->index).arg(ops.join(QStringLiteral(", "))));

    const auto ref = referenceView(*m_session, *row, element);
    const auto rt = runtimeView(*m_session, *row, element);
    if (!ref) {
        m_hover->setText(tr("The reference output is not a tensor."));
        return;
    }
    // The slice: last two dimensions; the leading ones flattened and indexed.
    const auto& shape = ref->shape;
    const std::int64_t w = shape.empty() ? 1 : shape.back();
    const std::int64_t h = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
    std::int64_t slices = 1;
    for (std::size_t d = 0; d + 2 < shape.size(); ++d)
        slices *= shape[d];
    m_leading->setRange(0, static_cast<int>(std::max<std::int64_t>(slices, 1) - 1));
    const std::int64_t base =
        std::min<std::int64_t>(m_leading->value(), std::max<std::int64_t>(slices - 1, 0)) * h * w;
    m_stride = static_cast<int>(
        std::max<std::int64_t>(1, std::max(h, w) / kMaxSide + (std::max(h, w) % kMaxSide ? 1 : 0)));
    m_width = static_cast<int>((w + m_stride - 1) / m_stride);
    m_height = static_cast<int>((h + m_stride - 1) / m_stride);

    const auto fill = [&](const View& v, std::vector<double>& out) {
        std::uint64_t numel = 1;
        for (auto d : v.shape)
            numel *= static_cast<std::uint64_t>(std::max<std::int64_t>(d, 0));
        out.assign(static_cast<std::size_t>(m_width) * static_cast<std::size_t>(m_height), std::nan(""));
        for (int y = 0; y < m_height; ++y)
            for (int x = 0; x < m_width; ++x) {
                const auto flat =
                    static_cast<std::uint64_t>(base + static_cast<std::int64_t>(y) * m_stride * w +
                                               static_cast<std::int64_t>(x) * m_stride);
                if (flat >= numel)
                    continue;
                double value = decodeElement(v.type, v.bytes, flat);
                if (v.dequant)
                    value = (value - static_cast<double>(v.dequant->second)) * v.dequant->first;
                out[static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width) +
                    static_cast<std::size_t>(x)] = value;
            }
    };
    fill(*ref, m_values[0]);
    const bool sameShape = rt && rt->shape == ref->shape;
    if (rt && sameShape) {
        fill(*rt, m_values[1]);
        m_values[2].resize(m_values[0].size());
        for (std::size_t i = 0; i < m_values[0].size(); ++i)
            m_values[2][i] = m_values[0][i] - m_values[1][i];
    }

    double lo = 0, hi = 0;
    for (int which = 0; which < 2; ++which)
        for (double v : m_values[static_cast<std::size_t>(which)])
            if (std::isfinite(v))
                lo = std::min(lo, v), hi = std::max(hi, v);
    for (int which = 0; which < 3; ++which) {
        auto* map = m_maps[static_cast<std::size_t>(which)];
        const auto& vals = m_values[static_cast<std::size_t>(which)];
        if (vals.empty())
            continue;
        map->data()->setSize(m_width, m_height);
        map->data()->setRange(QCPRange(0, m_width - 1), QCPRange(0, m_height - 1));
        for (int y = 0; y < m_height; ++y)
            for (int x = 0; x < m_width; ++x)
                map->data()->setCell(x, y,
                                     vals[static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width) +
                                          static_cast<std::size_t>(x)]);
        if (which == 2) {
            double m = 0;
            for (double v : vals)
                if (std::isfinite(v))
                    m = std::max(m, std::fabs(v));
            // Identical tensors get a unit range instead of a degenerate one.
            map->setDataRange(m > 0 ? QCPRange(-m, m) : QCPRange(-1, 1));
        } else if (m_shared->isChecked() && hi > lo) {
            map->setDataRange(QCPRange(lo, hi));
        } else {
            map->rescaleDataRange(true);
        }
        m_plots[static_cast<std::size_t>(which)]->rescaleAxes();
        m_plots[static_cast<std::size_t>(which)]->xAxis->setRange(-0.5, m_width - 0.5);
        m_plots[static_cast<std::size_t>(which)]->yAxis->setRange(-0.5, m_height - 0.5);
    }
    for (auto* p : m_plots)
        p->replot();
    m_hover->setText(
        rt ? (sameShape ? tr("%1 × %2 slice%3")
                              .arg(h)
                              .arg(w)
                              .arg(m_stride > 1 ? tr(", every %1th element").arg(m_stride) : QString())
                        : tr("Runtime shape differs from the reference: only the reference is shown."))
           : tr("No runtime tensor data for this op (%1).").arg(QString::fromStdString(row->reason)));
}

void TensorPanel::showValueAt(int which, const QPointF& pixel) {
    if (m_values[0].empty())
        return;
    double kx = 0, ky = 0;
    m_maps[static_cast<std::size_t>(which)]->pixelsToCoords(pixel, kx, ky);
    const int x = static_cast<int>(std::lround(kx)), y = static_cast<int>(std::lround(ky));
    if (x < 0 || y < 0 || x >= m_width || y >= m_height)
        return;
    const auto at =
        static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width) + static_cast<std::size_t>(x);
    auto value = [&](int i) {
        const auto& v = m_values[static_cast<std::size_t>(i)];
        return at < v.size() ? QString::number(v[at], 'g', 6) : QStringLiteral("—");
    };
    m_hover->setText(tr("[%1, %2]  reference %3   runtime %4   difference %5")
                         .arg(y * m_stride)
                         .arg(x * m_stride)
                         .arg(value(0), value(1), value(2)));
}

} // namespace gapscope
