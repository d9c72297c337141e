#include "widgets/elided_label.h"

#include <QPainter>
#include <QStyle>

namespace gapscope {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setTextFormat(Qt::PlainText);
}

void ElidedLabel::setText(const QString& text, const QString& tooltip) {
    m_text = text;
    setToolTip(tooltip.isEmpty() ? text : tooltip);
    QLabel::setText(text); // for accessibility and sizeHint
    update();
}

QSize ElidedLabel::minimumSizeHint() const {
    return {fontMetrics().horizontalAdvance(QStringLiteral("Row 0000: …")), fontMetrics().height()};
}

QSize ElidedLabel::sizeHint() const {
    return {fontMetrics().horizontalAdvance(m_text), fontMetrics().height()};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QRect r = contentsRect();
    painter.drawText(r, static_cast<int>(alignment() | Qt::TextSingleLine),
                     fontMetrics().elidedText(m_text, Qt::ElideRight, r.width()));
}

} // namespace gapscope
