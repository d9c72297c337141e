#pragma once

#include <QStringList>
#include <QWidget>

class QHBoxLayout;

namespace gapscope {

// Under the banner: when several files of a session could be its debug buffer
// (which has no header to tell it by), one button per file, and the user picks.
// Hidden when there is nothing to pick.
class DebugBufferPicker : public QWidget {
    Q_OBJECT
public:
    explicit DebugBufferPicker(QWidget* parent = nullptr);
    void setCandidates(const QStringList& paths);
    const QStringList& candidates() const { return m_candidates; }

signals:
    void picked(const QString& path);

private:
    QHBoxLayout* m_buttons;
    QStringList m_candidates;
};

} // namespace gapscope
