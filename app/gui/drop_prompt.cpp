#include "app/gui/drop_prompt.h"

#include "app/gui/session_file.h"
#include "core/session/file_kind.h"

#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>

namespace gapscope {

bool startsSession(const QStringList& paths) {
    for (const auto& p : paths) {
        if (QFileInfo(p).isDir() || isSessionFile(p))
            return true;
        if (const auto kind = fileKindAt(p.toStdString()); kind && recordsARun(*kind))
            return true;
    }
    return false;
}

DropAction askDropAction(QWidget* parent, const QStringList& paths, bool canAdd) {
    QMessageBox box(parent);
    box.setWindowTitle(QObject::tr("Another session"));
    box.setIcon(QMessageBox::Question);
    box.setTextFormat(Qt::PlainText); // file names from the disk
    box.setText(paths.size() == 1
                    ? QObject::tr("%1 is a session of its own.").arg(QFileInfo(paths.front()).fileName())
                    : QObject::tr("These %1 files are a session of their own.").arg(paths.size()));
    box.setInformativeText(
        QObject::tr("Open it instead of the session shown, compare it beside this one (A/B), "
                    "or add its files to this session?"));
    QPushButton* open = box.addButton(QObject::tr("&Open instead"), QMessageBox::AcceptRole);
    QPushButton* beside = box.addButton(QObject::tr("Compare &beside (A/B)"), QMessageBox::AcceptRole);
    QPushButton* add = box.addButton(QObject::tr("&Add its files"), QMessageBox::AcceptRole);
    add->setEnabled(canAdd);
    if (!canAdd)
        add->setToolTip(QObject::tr("The demo is built into the app: no files can be added to it"));
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(open);
    box.exec();
    return box.clickedButton() == open     ? DropAction::Open
           : box.clickedButton() == beside ? DropAction::Beside
           : box.clickedButton() == add    ? DropAction::AddFiles
                                           : DropAction::Cancel;
}

} // namespace gapscope
