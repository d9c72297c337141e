#include "app/gui/session_banner.h"

namespace gapscope {

SessionBanner::SessionBanner(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
    // File names and messages from inputs: never read as rich text.
    setTextFormat(Qt::PlainText);
    setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; border: 1px solid #e0c36a; padding: 6px; }"));
    hide();
}

void SessionBanner::showLines(const QStringList& lines) {
    constexpr int kShown = 3;
    QStringList shown = lines.mid(0, kShown);
    if (lines.size() > kShown)
        shown << tr("… and %n more (hover here for all)", "", static_cast<int>(lines.size() - kShown));
    setText(shown.join(QLatin1Char('\n')));
    setToolTip(lines.size() > kShown ? lines.join(QLatin1Char('\n')) : QString());
    setVisible(!lines.isEmpty());
}

QStringList SessionBanner::linesFor(const Session& snapshot, const QStringList& pathErrors) {
    QStringList lines = pathErrors;
    for (const auto& e : snapshot.errors) // the unreadable files are among them too: once each
        if (const QString text = QString::fromStdString(e.describe()); !lines.contains(text))
            lines << text;
    for (const auto m : snapshot.missing)
        lines << (m == InputRole::DebugBuffer && !snapshot.debug_buffer_candidates.empty()
                      ? tr("debug buffer missing: %n files could be it; pick one below, or drop it here", "",
                           static_cast<int>(snapshot.debug_buffer_candidates.size()))
                      : tr("%1 missing: drop it here").arg(QString::fromLatin1(inputRoleLabel(m))));
    return lines;
}

QStringList SessionBanner::changedLines(const Session& snapshot) {
    QStringList lines;
    for (const auto& path : changedInputs(snapshot))
        lines << tr("%1 changed on disk since it was opened: what is shown may no longer match it; press F5 "
                    "to reload")
                     .arg(QString::fromStdString(path));
    return lines;
}

} // namespace gapscope
