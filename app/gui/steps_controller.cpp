#include "app/gui/steps_controller.h"

#include "core/compare/run_checks.h"
#include "widgets/post_if_current.h"

namespace gapscope {

StepsController::StepsController(QObject* parent) : QObject(parent) {}

StepsController::~StepsController() {
    m_jobs.cancel();
    m_jobs.waitForIdle();
}

void StepsController::sessionCompleted(std::shared_ptr<const Session> session) {
    if (!session || !session->comparison || !session->dump) {
        m_jobs.cancel();
        m_busy = false;
        m_steps.reset();
        m_workspace = nullptr;
        emit none(tr("Nothing is compared."));
        return;
    }
    const auto& c = *session->comparison;
    if (session->workspace.get() == m_workspace && session->file_set == m_fileSet && c.method == m_method &&
        (m_steps || m_busy))
        return; // the same loop: another of its steps is shown
    const auto executions = executionsOf(*session->dump, c.method, c.run_methods);
    m_jobs.cancel();
    m_steps.reset();
    m_workspace = session->workspace.get();
    m_fileSet = session->file_set;
    m_method = c.method;
    if (executions.size() < 2) {
        m_busy = false;
        emit none(tr("The ETDump holds one execution of '%1': there are no steps to compare.")
                      .arg(QString::fromStdString(c.method)));
        return;
    }
    m_busy = true;
    emit computing(executions.size());
    m_jobs.start([this, session](std::uint64_t generation, const std::atomic<bool>& cancelled) {
        SessionOptions options;
        options.threshold = session->threshold;
        auto steps = std::make_shared<const SessionSteps>(compareSteps(
            *session, options, &cancelled, [this, generation](std::size_t done, std::size_t total) {
                postIfCurrent(this, m_jobs, generation, [this, done, total] { emit progress(done, total); });
            }));
        postIfCurrent(this, m_jobs, generation, [this, steps] {
            m_busy = false;
            m_steps = steps;
            emit ready(steps);
        });
    });
}

} // namespace gapscope
