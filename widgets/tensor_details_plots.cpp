#include "widgets/tensor_details_plots.h"

#include "widgets/scatter_sprite.h"
#include "widgets/stacked_scatter_graph.h"

#include <qcustomplot.h>

namespace gapscope {

void drawTensorDetails(QCustomPlot* histogram, QCustomPlot* scatter, QCustomPlot* channels,
                       const TensorDetails& d) {
    for (auto* p : {histogram, scatter, channels}) {
        p->clearPlottables();
        p->clearItems();
    }
    auto* bars = new QCPBars(histogram->xAxis, histogram->yAxis);
    bars->setData(d.centers, d.counts, true);
    bars->setWidth(d.binWidth);
    bars->setBrush(QColor(90, 120, 190));
    bars->setPen(Qt::NoPen);
    histogram->rescaleAxes();
    histogram->yAxis->setRangeLower(0);
    histogram->replot();

    // Runtime against reference: clipping and quantisation steps show as shapes.
    auto* dots = new StackedScatterGraph(scatter->xAxis, scatter->yAxis); // one blit a pixel
    dots->setData(d.xs, d.ys, true);                                      // sorted by computeDetails
    dots->setLineStyle(QCPGraph::lsNone);
    dots->setScatterStyle(
        scatterSprite(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(40, 90, 170, 140), 3)));
    dots->setAdaptiveSampling(false);
    auto* diagonal = new QCPItemStraightLine(scatter);
    diagonal->point1->setCoords(0, 0);
    diagonal->point2->setCoords(1, 1);
    diagonal->setPen(QPen(QColor(200, 60, 60), 1, Qt::DashLine));
    scatter->xAxis->setLabel(QObject::tr("reference"));
    scatter->yAxis->setLabel(QObject::tr("runtime"));
    scatter->rescaleAxes();
    scatter->replot();

    auto* perChannel = new QCPBars(channels->xAxis, channels->yAxis);
    perChannel->setData(d.channelKeys, d.channelMse, true);
    perChannel->setBrush(QColor(230, 120, 60));
    perChannel->setPen(Qt::NoPen);
    channels->xAxis->setLabel(QObject::tr("index along axis %1").arg(d.axis));
    channels->rescaleAxes();
    channels->xAxis->scaleRange(1.1);
    channels->yAxis->setRangeLower(0);
    channels->replot();
}

} // namespace gapscope
