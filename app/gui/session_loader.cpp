#include "app/gui/session_loader.h"

#include "core/common/parallel.h"
#include "core/session/stage_runner.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace gapscope {

SessionLoader::SessionLoader(QObject* parent) : QObject(parent) {
    m_pool.setMaxThreadCount(2); // a running job and a superseded one winding down
}

SessionLoader::~SessionLoader() {
    if (m_cancelled)
        m_cancelled->store(true);
    m_pool.waitForDone(); // workers post to this object: they must end first
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
    run([list](std::vector<Error>& errors) { return sessionInputsFromPaths(list, errors); }, options);
}

void SessionLoader::loadDemo(EmbeddedDemo demo, const SessionOptions& options) {
    run([demo](std::vector<Error>&) { return embeddedDemoInputs(demo); }, options);
}

void SessionLoader::cancel() {
    ++m_generation; // whatever the running job still posts is dropped
    if (m_cancelled)
        m_cancelled->store(true);
    m_busy = false;
}

void SessionLoader::post(quint64 generation, std::function<void()> fn) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, fn = std::move(fn)] {
            if (generation == m_generation)
                fn();
        },
        Qt::QueuedConnection);
}

void SessionLoader::run(std::function<SessionInputs(std::vector<Error>&)> gather,
                        const SessionOptions& options) {
    const quint64 generation = ++m_generation;
    if (m_cancelled)
        m_cancelled->store(true); // a superseded job stops too
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    m_cancelled = cancelled;
    m_busy = true;
    emit started();

    SessionOptions jobOptions = options;
    jobOptions.progress = [this, cancelled, generation](std::uint64_t done, std::uint64_t total) {
        post(generation, [this, done, total] { emit progress(tr("Reading"), done, total); });
        return !cancelled->load();
    };
    auto job = [this, generation, cancelled, gather = std::move(gather), options = std::move(jobOptions)] {
        std::vector<Error> pathErrors;
        const SessionInputs inputs = gather(pathErrors);
        StagedSession staged = openSession(inputs, options);
        std::shared_ptr<Session> session(std::move(staged.session));
        QStringList errors;
        for (const auto& e : pathErrors)
            errors << QString::fromStdString(e.describe());
        // From here on the UI thread owns the rows; this job reads inputs and plans only.
        const bool complete = session->complete;
        post(generation, [this, session, errors] {
            m_session = session;
            emit opened(session, errors);
            if (session->complete) {
                m_busy = false;
                emit completed(session);
            }
        });
        if (complete)
            return;

        // Results are posted: the UI thread applies them to the rows it shows.
        StageCallbacks stages;
        stages.cancelled = [cancelled] { return cancelled->load(); };
        stages.measured = [this, generation](std::vector<RowMeasurement> batch, std::size_t done,
                                             std::size_t total) {
            auto measured = std::make_shared<std::vector<RowMeasurement>>(std::move(batch));
            post(generation, [this, measured, done, total] {
                std::size_t first = SIZE_MAX, last = 0;
                for (const auto& m : *measured) {
                    applyMeasurement(*m_session->comparison, m);
                    first = std::min(first, m.row);
                    last = std::max(last, m.row);
                }
                emit rowsMeasured(first, last);
                emit progress(tr("Measuring"), done, total);
            });
        };
        stages.completed = [this, generation, options](std::vector<OutputComparison> outputs,
                                                       CaptureProvenance provenance) {
            auto results = std::make_shared<std::vector<OutputComparison>>(std::move(outputs));
            post(generation, [this, results, options, provenance] {
                completeSession(*m_session, std::move(*results), options, provenance);
                m_busy = false;
                emit completed(m_session);
            });
        };
        // Reads the mapped inputs only, never what the UI thread changes.
        runStages(*session, staged.pending, stages);
    };
    (void)QtConcurrent::run(&m_pool, std::move(job));
}

} // namespace gapscope
