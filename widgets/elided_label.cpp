#include "widgets/elided_label.h"

#include "widgets/bounded_text_delegate.h"

#include <QPainter>
#include <QStyle>

namespace gapscope {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setTextFormat(Qt::PlainText);
}

void ElidedLabel::setText(const QString& text, const QString& tooltip) {
    m_text = text;
    // Laid out on every size hint and paint: a name from a file may be a million
    // characters long, and no line of a screen holds more than a few hundred.
    m_shown = boundedText(text, BoundedTextDelegate::kMaxCell);
    setToolTip(boundedText(tooltip.isEmpty() ? text : tooltip, BoundedTextDelegate::kMaxToolTip));
    QLabel::setText(m_shown); // for accessibility and sizeHint
    update();
}

QSize ElidedLabel::minimumSizeHint() const {
    return {fontMetrics().horizontalAdvance(QStringLiteral("Row 0000: …")), fontMetrics().height()};
}

QSize ElidedLabel::sizeHint() const {
    return {fontMetrics().horizontalAdvance(m_shown), fontMetrics().height()};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QRect r = contentsRect();
    painter.drawText(r, static_cast<int>(alignment() | Qt::TextSingleLine),
                     fontMetrics().elidedText(m_shown, Qt::ElideRight, r.width()));
}

} // namespace gapscope
