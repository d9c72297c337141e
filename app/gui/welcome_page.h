#pragma once

#include "app/gui/session_loader.h"

#include <QWidget>

class QListWidget;

namespace gapscope {

// What a first start shows: the workflow in one line, Open files…, the two
// embedded demos and the recent sessions (full paths in tooltips; a saved
// session file is one entry).
class WelcomePage : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    void setRecent(const QList<QStringList>& sessions);
    QListWidget* recentList() const { return m_recent; }

signals:
    void openRequested();
    void openFolderRequested();
    void demoRequested(gapscope::EmbeddedDemo demo);
    void recentRequested(const QStringList& files);

private:
    QListWidget* m_recent;
};

// "run.etdp, etrecord.bin (+2)" for a list of files; a session file by its name.
QString describeFiles(const QStringList& files);

} // namespace gapscope
