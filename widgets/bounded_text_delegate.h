#pragma once

#include <QStyledItemDelegate>

namespace gapscope {

// The text a cell shows, cut to a length a screen can hold: op and node names
// come from input files and may be a million characters long, which Qt lays
// out whole on every paint and every tooltip (a 1,000,000-character name froze
// the window for 20 s). What is cut says how long the whole was; the reports
// keep every name whole.
QString boundedText(const QString& text, qsizetype max);

// Installed on every table of the app: cells and their tooltips are bounded
// (boundedText) before Qt lays them out; models stay untouched.
class BoundedTextDelegate : public QStyledItemDelegate {
public:
    static constexpr qsizetype kMaxCell = 1000;
    static constexpr qsizetype kMaxToolTip = 4000;

    using QStyledItemDelegate::QStyledItemDelegate;

    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

} // namespace gapscope
