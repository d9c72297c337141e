#include "app/gui/compare_controller.h"

#include "app/gui/session_loader.h"
#include "core/common/parallel.h"
#include "core/compare/run_checks.h"
#include "core/runs/run_summary.h"
#include "widgets/post_if_current.h"

#include <QFileInfo>
#include <algorithm>
#include <filesystem>
#include <optional>

namespace gapscope {

CompareController::CompareController(QObject* parent) : QObject(parent), m_loaderB(new SessionLoader(this)) {
    connect(m_loaderB, &SessionLoader::completed, this, [this](std::shared_ptr<const Session> b) {
        if (!b->comparison) {
            m_b.reset();
            m_failedB = true;
            const QString why = !b->errors.empty()
                                    ? QString::fromStdString(b->errors.front().describe())
                                    : tr("its files hold no comparison (an ETDump and a capture)");
            emit failed(tr("B (%1) cannot be compared: %2").arg(m_pathsB.join(QStringLiteral(", ")), why));
            emit settled();
            return;
        }
        m_b = std::move(b);
        if (!followStep())
            pairIfReady();
    });
}

CompareController::~CompareController() {
    m_jobs.cancel();
    m_jobs.waitForIdle();
}

void CompareController::openB(const QStringList& paths, std::shared_ptr<Workspace> besideA) {
    m_pathsB = paths;
    m_failedB = false;
    m_b.reset();
    m_runs.reset();
    m_pairedA.reset();
    m_pairedB.reset();
    m_jobs.cancel();
    m_pairing = false;
    // A file set of A's workspace: a file A and B share (an ETRecord, a
    // capture, the same folder at another run) is parsed once (issue 57).
    m_loaderB->loadBeside(paths, std::move(besideA));
}

void CompareController::setA(std::shared_ptr<const Session> session) {
    m_a = session && session->comparison && session->complete ? std::move(session) : nullptr;
    if (!hasB())
        return;
    if (!m_a) { // A has nothing to compare: B waits for one that has
        m_jobs.cancel();
        m_pairing = false;
        emit settled();
        return;
    }
    if (followStep())
        return; // B is compared again at A's step; its completion pairs
    pairIfReady();
}

bool CompareController::followStep() {
    if (!m_a || !m_b || !m_a->dump || !m_b->dump)
        return false;
    const auto& a = *m_a->comparison;
    const auto& b = *m_b->comparison;
    const auto stepsA = executionsOf(*m_a->dump, a.method, a.run_methods, a.saved_outputs != nullptr);
    const auto stepsB = executionsOf(*m_b->dump, b.method, b.run_methods, b.saved_outputs != nullptr);
    const auto step = std::find(stepsA.begin(), stepsA.end(), a.run) - stepsA.begin();
    if (stepsA.size() < 2 || static_cast<std::size_t>(step) >= stepsA.size() ||
        static_cast<std::size_t>(step) >= stepsB.size() || stepsB[static_cast<std::size_t>(step)] == b.run)
        return false;
    SessionOptions options;
    options.comparison.method = b.method;
    options.comparison.run = stepsB[static_cast<std::size_t>(step)];
    m_b.reset();
    m_runs.reset();
    if (!m_loaderB->recompare(options))
        m_loaderB->loadPaths(m_pathsB, options);
    return true;
}

void CompareController::closeB() {
    m_loaderB->release();
    m_jobs.cancel();
    m_pathsB.clear();
    m_failedB = false;
    m_b.reset();
    m_runs.reset();
    m_pairedA.reset();
    m_pairedB.reset();
    m_pairing = false;
}

bool CompareController::busy() const {
    return hasB() && (m_loaderB->busy() || m_pairing);
}

std::string CompareController::label(const Session& s) {
    // The session's folder names it ("attention-8a8w"); a capture's file name otherwise.
    const auto& file = s.etdump_file ? s.etdump_file : s.capture_file;
    if (!file)
        return "session";
    const std::filesystem::path path(file->path());
    const auto folder = path.parent_path().filename().string();
    return folder.empty() ? path.filename().string() : folder;
}

void CompareController::pairIfReady() {
    if (!m_a || !m_b)
        return;
    m_pairing = true;
    auto a = m_a, b = m_b;
    const auto generation = m_jobs.start([this, a, b](std::uint64_t gen, const std::atomic<bool>&) {
        // Both summaries at once: each is a few ms at 3,000 rows, and the UI
        // thread waits for the pairing with nothing else to do.
        std::optional<RunSummary> summaries[2];
        const Session* sides[2] = {a.get(), b.get()};
        parallelFor(2, [&](std::size_t i) {
            const Session& s = *sides[i];
            summaries[i] =
                summarizeRun(*s.comparison, label(s), runReference(s.capture.get()), s.latency.get());
        });
        auto runs = std::make_shared<const ComparedRuns>(
            compareRuns(std::move(*summaries[0]), std::move(*summaries[1])));
        postIfCurrent(this, m_jobs, gen, [this, runs, a, b] {
            m_pairing = false;
            m_runs = runs;
            m_pairedA = a;
            m_pairedB = b;
            emit compared(runs);
            emit settled();
        });
    });
    (void)generation;
}

} // namespace gapscope
