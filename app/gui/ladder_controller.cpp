#include "app/gui/ladder_controller.h"

#include "app/gui/session_loader.h"
#include "core/report/fix_report.h"
#include "core/session/session_ladder.h"
#include "widgets/post_if_current.h"

#include <filesystem>
#include <system_error>

namespace gapscope {

namespace {

QString noLadder(std::size_t references) {
    return LadderController::tr(
               "The stage ladder needs two references of this run (a float model and the program's own "
               "graph, say); this session has %1. Write them with gapscope-capture stages ETRECORD "
               "SESSION/stages (docs/your-model.md, \"Which stage loses the accuracy\").")
        .arg(references);
}

} // namespace

LadderController::LadderController(const SessionLoader* files, QObject* parent)
    : QObject(parent), m_files(files) {}

void LadderController::sessionCompleted(std::shared_ptr<const Session> session) {
    m_jobs.cancel();
    if (!session || !session->comparison || !session->capture) {
        m_busy = false;
        emit none(tr("No comparison: no stage ladder."));
        emit fixFound(nullptr, {});
        return;
    }
    // One capture and no stages/ folder beside the ETDump: nothing to put on a
    // ladder; and no fix/fix.json: no job at all.
    const auto folder = session->etdump_file
                            ? std::filesystem::path(session->etdump_file->path()).parent_path()
                            : std::filesystem::path();
    const bool oneCapture = !session->captures_offered || session->captures_offered->paths.size() < 2;
    std::error_code ec;
    const bool ladder =
        !oneCapture || (!folder.empty() && std::filesystem::is_directory(folder / "stages", ec));
    const std::string fixPath = folder.empty() ? std::string() : fixReportBeside(folder.string());
    if (!ladder)
        emit none(noLadder(1));
    if (fixPath.empty())
        emit fixFound(nullptr, {});
    if (!ladder && fixPath.empty()) {
        m_busy = false;
        return;
    }
    m_busy = true;
    SessionOptions options;
    options.threshold = session->threshold;
    options.workspace = m_files ? m_files->workspace() : nullptr;
    options.file_set = m_files ? m_files->fileSet() : 0;
    m_jobs.start([this, session, options, ladder, fixPath](std::uint64_t generation,
                                                           const std::atomic<bool>& cancelled) {
        std::shared_ptr<const FixReport> fix;
        QString fixError;
        if (!fixPath.empty()) {
            auto read = loadFixReport(fixPath);
            if (read)
                fix = std::make_shared<const FixReport>(std::move(read.value()));
            else
                fixError = QString::fromStdString(read.error().describe());
        }
        std::shared_ptr<const StageLadder> built;
        if (ladder) {
            SessionOptions o = options;
            o.comparison.cancelled = &cancelled;
            built = std::make_shared<const StageLadder>(ladderOfSession(*session, o));
        }
        postIfCurrent(this, m_jobs, generation, [this, built, fix, fixError, hasFix = !fixPath.empty()] {
            m_busy = false;
            if (built && built->stages.size() < 3) // one reference and the device: the table already is that
                emit none(noLadder(built->stages.size() - 1));
            else if (built)
                emit ready(built);
            if (hasFix)
                emit fixFound(fix, fixError);
        });
    });
}

} // namespace gapscope
