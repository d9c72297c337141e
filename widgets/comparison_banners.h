#pragma once

#include "core/session/session.h"

#include <QWidget>

class QLabel;

namespace gapscope {

// Above the op table: what the comparison warns about (a capture of another
// method or graph, a run that does not fit), where the numbers it concerns
// are, and apart from it, in a calm colour, its notes (Comparison::notes: the
// numbers are right but cannot be finer, as a delegate that logs only its
// outputs). Each hidden when empty.
class ComparisonBanners : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonBanners(QWidget* parent = nullptr);
    void setSession(const Session* session);
    QLabel* warnings() const { return m_warnings; }
    QLabel* notes() const { return m_notes; }

private:
    QLabel* m_warnings;
    QLabel* m_notes;
};

} // namespace gapscope
