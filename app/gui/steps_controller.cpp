#include "app/gui/steps_controller.h"

#include "app/gui/session_loader.h"
#include "core/compare/run_checks.h"
#include "widgets/post_if_current.h"

namespace gapscope {

namespace {

// The same file as mapped then: one control block (a weak pointer's owner).
bool same(const std::weak_ptr<const MappedFile>& kept, const std::shared_ptr<const MappedFile>& now) {
    return !kept.owner_before(now) && !now.owner_before(kept);
}

} // namespace

StepsController::StepsController(const SessionLoader* files, QObject* parent)
    : QObject(parent), m_files(files) {}

StepsController::~StepsController() {
    m_jobs.cancel();
    m_jobs.waitForIdle();
}

void StepsController::sessionCompleted(std::shared_ptr<const Session> session) {
    if (!session || !session->comparison || !session->dump) {
        m_jobs.cancel();
        m_busy = false;
        m_steps.reset();
        m_etdump.reset();
        m_debugBuffer.reset();
        emit none(tr("Nothing is compared."));
        return;
    }
    const auto& c = *session->comparison;
    if (same(m_etdump, session->etdump_file) && same(m_debugBuffer, session->debug_buffer_file) &&
        c.method == m_method && (m_steps || m_busy))
        return; // the same loop: another of its steps is shown
    const auto executions = executionsOf(*session->dump, c.method, c.run_methods, c.saved_outputs != nullptr);
    m_jobs.cancel();
    m_steps.reset();
    m_etdump = session->etdump_file;
    m_debugBuffer = session->debug_buffer_file;
    m_method = c.method;
    if (executions.size() < 2) {
        m_busy = false;
        emit none(tr("The ETDump holds one execution of '%1': there are no steps to compare.")
                      .arg(QString::fromStdString(c.method)));
        return;
    }
    m_busy = true;
    emit computing(executions.size());
    // The loader's workspace and set are the session's: a session completes
    // through the loader that holds them, and a later load's are taken only
    // with its own sessions.
    SessionOptions options;
    options.threshold = session->threshold;
    options.workspace = m_files ? m_files->workspace() : nullptr;
    options.file_set = m_files ? m_files->fileSet() : 0;
    m_jobs.start([this, session, options](std::uint64_t generation, const std::atomic<bool>& cancelled) {
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
