#include "app/gui/session_loader.h"

#include "core/session/stage_runner.h"
#include "widgets/post_if_current.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <algorithm>
#include <mutex>
#include <utility>

namespace gapscope {

SessionLoader::SessionLoader(QObject* parent) : QObject(parent) {}

SessionLoader::~SessionLoader() {
    // Jobs post to this object: they must end while it is whole.
    m_jobs.cancel();
    m_jobs.waitForIdle();
}

SessionInputs embeddedDemoInputs(EmbeddedDemo demo) {
    SessionInputs in;
    const QDir dir(demo == EmbeddedDemo::Qnn ? QStringLiteral(":/demo_qnn") : QStringLiteral(":/demo"));
    for (const auto& name : dir.entryList(QDir::Files, QDir::Name)) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = f.readAll();
        in.files.push_back(MappedFile::fromBytes(dir.dirName().toStdString() + "/" + name.toStdString(),
                                                 reinterpret_cast<const std::uint8_t*>(bytes.constData()),
                                                 static_cast<std::size_t>(bytes.size())));
    }
    return in;
}

void SessionLoader::loadPaths(const QStringList& paths, const SessionOptions& options) {
    std::vector<std::string> list;
    for (const auto& p : paths)
        list.push_back(p.toStdString());
    runFresh([list](std::vector<Error>& errors) { return sessionInputsFromPaths(list, errors); }, options);
}

void SessionLoader::loadDemo(EmbeddedDemo demo, const SessionOptions& options) {
    runFresh([demo](std::vector<Error>&) { return embeddedDemoInputs(demo); }, options);
}

void SessionLoader::runFresh(std::function<SessionInputs(std::vector<Error>&)> gather,
                             const SessionOptions& options) {
    m_workspace.reset();
    SessionOptions fresh = options;
    fresh.workspace.reset();
    run(std::move(gather), fresh);
}

void SessionLoader::loadBeside(const QStringList& paths, std::shared_ptr<Workspace> workspace,
                               const SessionOptions& options) {
    std::vector<std::string> list;
    for (const auto& p : paths)
        list.push_back(p.toStdString());
    auto gather = [list](std::vector<Error>& errors) { return sessionInputsFromPaths(list, errors); };
    if (!workspace) {
        runFresh(std::move(gather), options);
        return;
    }
    SessionOptions beside = options;
    beside.workspace = std::move(workspace);
    run(std::move(gather), beside);
}

void SessionLoader::release() {
    cancel();
    m_workspace.reset();
}

bool SessionLoader::recompare(const SessionOptions& options) {
    if (!m_workspace)
        return false;
    SessionOptions over = options;
    over.workspace = m_workspace;
    over.file_set = m_fileSet;
    run({}, over); // nothing to gather: the workspace holds the files
    return true;
}

void SessionLoader::cancel() {
    m_jobs.cancel(); // whatever the running job still posts is dropped
    m_busy = false;
}

void SessionLoader::post(std::uint64_t generation, std::function<void()> fn) {
    postIfCurrent(this, m_jobs, generation, std::move(fn));
}

namespace {

// Decides when the worker publishes a snapshot of its session. A snapshot
// copies the rows: publishing after every batch would cost O(rows × batches)
// on a big session, so snapshots wait at least an interval (100 ms) and at
// least four times the last copy's duration (copying stays under a fifth of
// the worker's time).
class SnapshotPacer {
public:
    explicit SnapshotPacer(qint64 intervalMs) : m_intervalMs(intervalMs) {}
    void measured(const std::vector<RowMeasurement>& batch) {
        for (const auto& m : batch) {
            m_first = std::min(m_first, m.row);
            m_last = std::max(m_last, m.row);
        }
    }
    bool due() const {
        return m_first <= m_last &&
               m_sincePublish.elapsed() >= std::max<qint64>(m_intervalMs, 4 * m_lastCopyMs);
    }
    // Copies `working` and resets the range of changed rows.
    std::shared_ptr<const Session> publish(const Session& working, std::size_t& first, std::size_t& last) {
        QElapsedTimer copying;
        copying.start();
        auto snapshot = std::make_shared<const Session>(working);
        m_lastCopyMs = copying.elapsed();
        first = m_first;
        last = m_last;
        m_first = SIZE_MAX;
        m_last = 0;
        m_sincePublish.start();
        return snapshot;
    }

private:
    qint64 m_intervalMs;
    std::size_t m_first = SIZE_MAX, m_last = 0;
    QElapsedTimer m_sincePublish;
    qint64 m_lastCopyMs = 0;
};

// What a worker has for the UI, handed over at most one queued event at a
// time: a worker that offers faster than the UI takes (progress after every
// batch, snapshots while the UI is still painting the last one) would queue
// events that the event loop then runs back to back, without a timer or a
// paint between them: one long stall. An offer while one is queued replaces
// (progress) or merges into (snapshots: the ranges of changed rows) the value
// the queued event will take.
template <typename T> class Latest {
public:
    // True when nothing is queued yet: the caller posts an event that take()s.
    bool offer(T value, void (*merge)(T& into, const T& older) = nullptr) {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_queued && merge)
            merge(value, m_value);
        m_value = std::move(value);
        return !std::exchange(m_queued, true);
    }
    T take() {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_queued = false;
        return std::move(m_value);
    }

private:
    std::mutex m_mutex;
    T m_value{};
    bool m_queued = false;
};

struct Progress {
    QString stage;
    quint64 done = 0, total = 0;
};

struct Snapshot {
    std::shared_ptr<const Session> session;
    std::size_t first = SIZE_MAX, last = 0;
};

void mergeRanges(Snapshot& into, const Snapshot& older) {
    into.first = std::min(into.first, older.first);
    into.last = std::max(into.last, older.last);
}

} // namespace

void SessionLoader::run(std::function<SessionInputs(std::vector<Error>&)> gather,
                        const SessionOptions& options) {
    m_busy = true;
    emit started();
    m_jobs.start([this, gather = std::move(gather), options, interval = m_snapshotIntervalMs](
                     std::uint64_t generation, const std::atomic<bool>& cancelled) {
        SessionOptions jobOptions = options;
        jobOptions.comparison.cancelled = &cancelled; // planning stops too, not only reading and measuring
        auto progressShown = std::make_shared<Latest<Progress>>();
        const auto tell = [this, generation, progressShown](const QString& stage, quint64 done,
                                                            quint64 total) {
            if (progressShown->offer(Progress{stage, done, total}))
                post(generation, [this, progressShown] {
                    const Progress p = progressShown->take();
                    emit progress(p.stage, p.done, p.total);
                });
        };
        jobOptions.progress = [tell, &cancelled](std::uint64_t done, std::uint64_t total) {
            tell(tr("Reading"), done, total);
            return !cancelled.load();
        };
        // A load maps the files here, as a new set of a fresh workspace or of the
        // one it was given (loadBeside), and hands the loader both; a recompare
        // works over the set it was given.
        if (gather) {
            std::vector<Error> unreadable;
            SessionInputs gathered = gather(unreadable);
            if (!jobOptions.workspace)
                jobOptions.workspace = std::make_shared<Workspace>();
            jobOptions.file_set = jobOptions.workspace->add(std::move(gathered), std::move(unreadable));
            post(generation, [this, workspace = jobOptions.workspace, set = jobOptions.file_set] {
                m_workspace = workspace;
                m_fileSet = set;
            });
        }
        StagedSession staged = openFileSet(jobOptions);
        // The files that could not be read are said on every comparison of them.
        QStringList errors;
        if (const auto set = jobOptions.workspace->fileSet(jobOptions.file_set))
            for (const auto& e : set->unreadable)
                errors << QString::fromStdString(e.describe());
        // The worker's own session: only this job ever changes it; views get copies.
        std::unique_ptr<Session> working = std::move(staged.session);
        if (working->complete) {
            std::shared_ptr<const Session> done(std::move(working));
            post(generation, [this, done, errors] {
                emit opened(done, errors);
                m_busy = false;
                emit completed(done);
            });
            return;
        }
        SnapshotPacer pacer(interval);
        std::size_t unused = 0;
        auto table = pacer.publish(*working, unused, unused);
        post(generation, [this, table, errors] { emit opened(table, errors); });

        auto snapshots = std::make_shared<Latest<Snapshot>>();
        StageCallbacks stages;
        stages.cancelled = &cancelled;
        stages.measured = [&](std::vector<RowMeasurement> batch, std::size_t done, std::size_t total) {
            for (const auto& m : batch)
                applyMeasurement(*working->comparison, m);
            pacer.measured(batch);
            if (pacer.due()) {
                std::size_t first = 0, last = 0;
                auto snapshot = pacer.publish(*working, first, last);
                if (snapshots->offer(Snapshot{std::move(snapshot), first, last}, mergeRanges))
                    post(generation, [this, snapshots] {
                        Snapshot latest = snapshots->take();
                        emit measured(std::move(latest.session), latest.first, latest.last);
                    });
            }
            tell(tr("Measuring"), done, total);
        };
        stages.completed = [&](std::vector<OutputComparison> outputs, CaptureProvenance provenance) {
            completeSession(*working, std::move(outputs), jobOptions, provenance);
            std::shared_ptr<const Session> final(std::move(working)); // the last change: no copy
            post(generation, [this, final] {
                m_busy = false;
                emit completed(final);
            });
        };
        runStages(*working, staged.pending, stages, jobOptions.workspace.get());
    });
}

} // namespace gapscope
