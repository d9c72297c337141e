#include "widgets/plot_title.h"

#include <QFontMetrics>

namespace gapscope {

PlotTitle::PlotTitle(QCustomPlot* plot, const QString& text, const QFont& font)
    : QCPTextElement(plot, text, font) {}

QSize PlotTitle::minimumOuterSizeHint() const {
    // As tall as the text, as narrow as the plot lets it be.
    QSize size = QCPTextElement::minimumOuterSizeHint();
    size.setWidth(mMargins.left() + mMargins.right());
    return size;
}

void PlotTitle::draw(QCPPainter* painter) {
    const QString whole = mText;
    const QFontMetrics metrics(mSelected ? mSelectedFont : mFont);
    const QString shown = metrics.elidedText(whole, Qt::ElideRight, std::max(mRect.width(), 0));
    if (shown == whole) {
        QCPTextElement::draw(painter);
        if (mParentPlot && mParentPlot->toolTip() == whole)
            mParentPlot->setToolTip(QString());
        return;
    }
    mText = shown;
    QCPTextElement::draw(painter);
    mText = whole;
    if (mParentPlot && mParentPlot->toolTip().isEmpty())
        mParentPlot->setToolTip(whole);
}

} // namespace gapscope
