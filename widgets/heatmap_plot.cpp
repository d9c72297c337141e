#include "widgets/heatmap_plot.h"

#include "widgets/metric_colors.h"
#include "widgets/new_plot.h"
#include "widgets/plot_export.h"
#include "widgets/plot_title.h"

#include <QWidget>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace gapscope {

HeatmapPlot makeHeatmapPlot(QWidget* parent, const QString& title, bool diverging,
                            const QString& exportName) {
    auto* plot = newPlot(parent);
    plot->setMinimumSize(140, 80);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new PlotTitle(plot, title, QFont(parent->font().family(), 9)));
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    auto* scale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(1, 1, scale);
    map->setColorScale(scale);
    QCPColorGradient gradient = diverging ? divergingGradient() : viridisGradient();
    gradient.setNanHandling(QCPColorGradient::nhTransparent); // no value there: nothing drawn
    map->setGradient(gradient);
    map->setInterpolate(false); // one cell per element: quantisation steps stay visible
    plot->yAxis->setRangeReversed(true);
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        // Element indices: whole numbers only.
        QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
        ticker->setTickStep(1);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        axis->setTicker(ticker);
    }
    plot->setMouseTracking(true);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Back to the whole slice (drawHeatmap keeps its extent on the plot).
    QObject::connect(plot, &QCustomPlot::mouseDoubleClick, plot, [plot](QMouseEvent*) {
        const QVariant x = plot->property("gapscopeFullX"), y = plot->property("gapscopeFullY");
        if (!x.isValid() || !y.isValid())
            return;
        plot->xAxis->setRange(x.toPointF().x(), x.toPointF().y());
        plot->yAxis->setRange(y.toPointF().x(), y.toPointF().y());
        plot->replot();
    });
    auto* empty = new QCPItemText(plot);
    empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    empty->position->setCoords(0.5, 0.5);
    empty->setColor(QColor(110, 110, 110));
    empty->setClipToAxisRect(false);
    empty->setVisible(false);
    enablePlotExport(plot, exportName);
    return {plot, map, empty};
}

void drawHeatmap(const HeatmapPlot& h, const std::vector<double>& values, int width, int height, int stride,
                 const QCPRange* range, const QString& whyEmpty) {
    QCPColorMap* map = h.map;
    // Nothing to show: no map, and no colour scale that would look like data.
    const bool shown = !values.empty() && width > 0 && height > 0;
    map->setVisible(shown);
    if (map->colorScale())
        map->colorScale()->setVisible(shown);
    if (h.empty) {
        h.empty->setText(whyEmpty);
        h.empty->setVisible(!shown && !whyEmpty.isEmpty());
    }
    if (!shown) {
        map->data()->setSize(1, 1);
        map->data()->fill(0);
        return;
    }
    map->data()->setSize(width, height);
    // Axes count elements of the tensor, also when every k-th one is shown.
    // QCustomPlot spans a dimension of one cell over its range alone (no half
    // cell either side), so such a dimension gets the cell's own extent.
    auto cells = [stride](int n) {
        return n > 1 ? QCPRange(0, (n - 1) * stride) : QCPRange(-0.5 * stride, 0.5 * stride);
    };
    map->data()->setRange(cells(width), cells(height));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            map->data()->setCell(x, y,
                                 values[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                                        static_cast<std::size_t>(x)]);
    if (range)
        map->setDataRange(*range);
    else
        map->rescaleDataRange(true);
    const double half = 0.5 * stride;
    h.plot->xAxis->setRange(-half, width * stride - half);
    h.plot->yAxis->setRange(-half, height * stride - half);
    h.plot->setProperty("gapscopeFullX", QPointF(-half, width * stride - half));
    h.plot->setProperty("gapscopeFullY", QPointF(-half, height * stride - half));
}

double maxAbs(const std::vector<double>& values) {
    double m = 0;
    for (double v : values)
        if (std::isfinite(v))
            m = std::max(m, std::fabs(v));
    return m;
}

} // namespace gapscope
