#pragma once

#include <QLabel>

namespace gapscope {

// A one-line label that shrinks: text too long for its width ends in "…", and
// the whole text is its tooltip. A plain QLabel's minimum width is its text's,
// so one long op list or value line would widen the whole window past the
// screen.
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    // `tooltip`: the full text, laid out for reading (default: the text).
    void setText(const QString& text, const QString& tooltip = {});
    QString text() const { return m_text; }
    // Hides QLabel::clear, which left m_text (and so the painted line and the
    // tooltip) as it was: the last session's worst elements stayed on screen.
    void clear() { setText(QString()); }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString m_text;
    QString m_shown; // m_text cut to what a line can show (boundedText)
};

} // namespace gapscope
