#include "widgets/bounded_text_delegate.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QToolTip>

namespace gapscope {

QString boundedText(const QString& text, qsizetype max) {
    if (text.size() <= max)
        return text;
    qsizetype cut = max;
    if (text.at(cut - 1).isHighSurrogate()) // never half a character
        --cut;
    return text.left(cut) + QStringLiteral("… (%L1 characters in all)").arg(text.size());
}

void BoundedTextDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (option->text.size() > kMaxCell)
        option->text = boundedText(option->text, kMaxCell);
}

bool BoundedTextDelegate::helpEvent(QHelpEvent* event, QAbstractItemView* view,
                                    const QStyleOptionViewItem& option, const QModelIndex& index) {
    if (event && event->type() == QEvent::ToolTip && index.isValid()) {
        const QString tip = index.data(Qt::ToolTipRole).toString();
        if (tip.size() > kMaxToolTip) {
            const bool rich = tip.startsWith(QStringLiteral("<qt>"));
            QToolTip::showText(event->globalPos(),
                               boundedText(tip, kMaxToolTip) + (rich ? QStringLiteral("</qt>") : QString()),
                               view, view->visualRect(index));
            return true;
        }
    }
    return QStyledItemDelegate::helpEvent(event, view, option, index);
}

} // namespace gapscope
