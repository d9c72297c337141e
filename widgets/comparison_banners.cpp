#include "widgets/comparison_banners.h"

#include <QLabel>
#include <QStringList>
#include <QVBoxLayout>

namespace gapscope {

namespace {

QLabel* banner(const char* name, const char* style) {
    auto* label = new QLabel;
    label->setObjectName(QString::fromLatin1(name));
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText); // messages name files and ops from the inputs
    label->setStyleSheet(QString::fromLatin1(style));
    label->hide();
    return label;
}

// Each line marked, shown when there is one.
void showLines(QLabel* label, const char* mark, const std::vector<std::string>& lines) {
    label->setVisible(!lines.empty());
    QStringList shown;
    for (const auto& line : lines)
        shown << QString::fromUtf8(mark) + QString::fromStdString(line);
    label->setText(shown.join(QLatin1Char('\n')));
}

} // namespace

ComparisonBanners::ComparisonBanners(QWidget* parent)
    : QWidget(parent),
      m_warnings(
          banner("comparisonWarnings",
                 "QLabel { background: #fff4ce; color: #5c4400; border: 1px solid #e0c060; padding: 4px; }")),
      m_notes(banner(
          "comparisonNotes",
          "QLabel { background: #e8f1fb; color: #1d3d5c; border: 1px solid #a9c6e6; padding: 4px; }")) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_warnings);
    layout->addWidget(m_notes);
}

void ComparisonBanners::setSession(const Session* session) {
    static const std::vector<std::string> none;
    const Comparison* c = session && session->comparison ? &*session->comparison : nullptr;
    showLines(m_warnings, "⚠ ", c ? c->warnings : none);
    showLines(m_notes, "ℹ ", c ? c->notes : none);
}

} // namespace gapscope
