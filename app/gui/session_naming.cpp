#include "app/gui/session_naming.h"

#include "app/gui/session_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace gapscope {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("gapscope::MainWindow", text);
}

} // namespace

QString SessionNaming::comparedMethod() const {
    return snapshot && snapshot->comparison && snapshot->comparison->method != "forward"
               ? QString::fromStdString(snapshot->comparison->method)
               : QString();
}

QString SessionNaming::name() const {
    if (sessions.isDemo())
        return sessions.demoKind() == EmbeddedDemo::Qnn ? tr("QNN 8a8w demo") : tr("XNNPACK int8 demo");
    if (!sessions.sessionFile().isEmpty()) {
        QString name = QFileInfo(sessions.sessionFile()).fileName();
        if (name.endsWith(QStringLiteral(".gapscope.json")))
            name.chop(14);
        return name;
    }
    if (sessions.paths().isEmpty())
        return {};
    const QFileInfo first(sessions.paths().front());
    return first.isDir() ? first.fileName() : QFileInfo(first.absolutePath()).fileName();
}

QString SessionNaming::defaultOutput(const QString& suffix) const {
    QString folder = QDir::homePath();
    if (!sessions.sessionFile().isEmpty())
        folder = QFileInfo(sessions.sessionFile()).absolutePath();
    else if (!sessions.isDemo() && !sessions.paths().isEmpty()) {
        const QFileInfo first(sessions.paths().front());
        folder = first.isDir() ? first.absoluteFilePath() : first.absolutePath();
    }
    QString file = name().isEmpty() ? QStringLiteral("gapscope") : name();
    file.replace(QLatin1Char(' '), QLatin1Char('-'));
    if (const QString method = comparedMethod(); !method.isEmpty())
        file += QLatin1Char('-') + method;
    return QDir(folder).filePath(file + suffix);
}

QString SessionNaming::title() const {
    QString shown = name();
    if (!sessions.isDemo() && sessions.sessionFile().isEmpty() && !sessions.paths().isEmpty()) {
        const QFileInfo first(sessions.paths().front());
        const QDir folder(first.isDir() ? first.absoluteFilePath() : first.absolutePath());
        const QString parent = QFileInfo(folder.absolutePath()).dir().dirName();
        if (!parent.isEmpty() && parent != QStringLiteral("."))
            shown = parent + QLatin1Char('/') + shown;
    }
    if (const QString method = comparedMethod(); !method.isEmpty())
        shown += QStringLiteral(" · ") + method;
    return shown.isEmpty() ? tr("Gapscope") : tr("%1 — Gapscope").arg(shown);
}

} // namespace gapscope
