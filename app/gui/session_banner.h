#pragma once

#include "core/session/session.h"

#include <QLabel>
#include <QStringList>

namespace gapscope {

// Above the page: files that could not be read, inputs missing, an input
// changed on disk. Three lines at most (issue 56: a 6-run BERT showed 8), all
// of them in the tooltip; plain text, since file names come from the inputs.
class SessionBanner : public QLabel {
    Q_OBJECT
public:
    explicit SessionBanner(QWidget* parent = nullptr);
    // Hidden when there are none.
    void showLines(const QStringList& lines);
    // What a snapshot calls for: the path errors, its errors (once each) and its missing inputs.
    static QStringList linesFor(const Session& snapshot, const QStringList& pathErrors);
    // Its inputs that changed on disk since they were opened (empty when none).
    static QStringList changedLines(const Session& snapshot);
};

} // namespace gapscope
