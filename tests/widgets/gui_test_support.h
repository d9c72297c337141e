#pragma once
// What the window tests share: the demo's files, a real drag and drop, and
// waiting for a load to be shown.
#include "app/gui/main_window.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QMimeData>
#include <QSignalSpy>
#include <QtTest>

namespace gapscope::test {

inline QDir demoDir() {
    return QDir(QStringLiteral(GAPSCOPE_DEMO_DIR));
}

inline QStringList demoFiles(const char* capture = "capture.gscap.safetensors") {
    QStringList files;
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", capture})
        files << demoDir().filePath(QString::fromLatin1(name));
    return files;
}

// A real drag: enter, then drop, with file URLs. False when the window refused the drag.
inline bool drop(QWidget& target, const QStringList& paths) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const auto& p : paths)
        urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&target, &enter);
    if (!enter.isAccepted())
        return false;
    QDropEvent dropped(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&target, &dropped);
    return dropped.isAccepted();
}

inline bool waitShown(MainWindow& window, int ms = 30000) {
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    return shown.wait(ms);
}

} // namespace gapscope::test
