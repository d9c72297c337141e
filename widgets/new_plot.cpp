#include "widgets/new_plot.h"

#include <qcustomplot.h>

namespace gapscope {

QCustomPlot* newPlot(QWidget* parent) {
    auto* plot = new QCustomPlot(parent);
    plot->setPlottingHint(QCP::phImmediateRefresh, false);
    return plot;
}

} // namespace gapscope
