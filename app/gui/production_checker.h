#pragma once

#include "core/common/job_tracker.h"
#include "core/session/session.h"

#include <QObject>
#include <QString>
#include <memory>

class QWidget;

namespace gapscope {

// File → Check Against the Production Build (issue 58): the tapped session shown
// against the build shipped (production_build.h), read and checked off the UI
// thread, the verdict shown in a message box whose details list each delegate
// and output. A second check supersedes the first.
class ProductionChecker : public QObject {
    Q_OBJECT
public:
    explicit ProductionChecker(QWidget* window);
    void check(std::shared_ptr<const Session> tapped, const QString& path);

signals:
    // The verdict as shown (for tests): a title, the findings, the details.
    void checked(const QString& title, const QString& text, const QString& details);

private:
    QWidget* m_window;
    JobTracker m_jobs;
};

} // namespace gapscope
