#pragma once

#include <qcustomplot.h>

namespace gapscope {

// A plot's title that never widens its plot and is cut with "…" when the plot
// is narrower than it (issue 56: at 1024 px "reference (AOT)" lost its first
// letter and "error per channel (MSE)" both ends). The whole title is the
// plot's tooltip where it is cut.
class PlotTitle : public QCPTextElement {
    Q_OBJECT
public:
    PlotTitle(QCustomPlot* plot, const QString& text, const QFont& font);

protected:
    void draw(QCPPainter* painter) override;
    QSize minimumOuterSizeHint() const override;
};

} // namespace gapscope
