#include "app/gui/session_loader.h"

#include <QDir>
#include <QFile>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace gapscope {

SessionLoader::SessionLoader(QObject* parent) : QObject(parent) {}

SessionInputs embeddedDemoInputs() {
    SessionInputs in;
    const QDir dir(QStringLiteral(":/demo"));
    for (const auto& name : dir.entryList(QDir::Files, QDir::Name)) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = f.readAll();
        in.files.push_back(MappedFile::fromBytes("demo/" + name.toStdString(),
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

void SessionLoader::loadDemo(const SessionOptions& options) {
    run([](std::vector<Error>&) { return embeddedDemoInputs(); }, options);
}

void SessionLoader::cancel() {
    ++m_generation; // the running job's result will be dropped
    if (m_cancelled)
        m_cancelled->store(true);
    m_busy = false;
}

void SessionLoader::run(std::function<SessionInputs(std::vector<Error>&)> gather,
                        const SessionOptions& options) {
    const quint64 generation = ++m_generation;
    if (m_cancelled)
        m_cancelled->store(true); // a superseded job stops reading too
    m_cancelled = std::make_shared<std::atomic<bool>>(false);
    m_busy = true;
    SessionOptions jobOptions = options;
    QPointer<SessionLoader> self(this);
    jobOptions.progress = [cancelled = m_cancelled, self, generation](std::uint64_t done,
                                                                      std::uint64_t total) {
        if (self)
            QMetaObject::invokeMethod(
                self,
                [self, generation, done, total] {
                    if (self && generation == self->m_generation)
                        emit self->progress(done, total);
                },
                Qt::QueuedConnection);
        return !cancelled->load();
    };
    emit started();
    struct Outcome {
        std::shared_ptr<const Session> session;
        QStringList errors;
    };
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // superseded by a newer load, or cancelled
        m_busy = false;
        const Outcome o = watcher->result();
        emit finished(o.session, o.errors);
    });
    watcher->setFuture(QtConcurrent::run([gather = std::move(gather), options = std::move(jobOptions)] {
        std::vector<Error> errors;
        SessionInputs inputs = gather(errors);
        Outcome o;
        o.session = loadSession(inputs, options);
        for (const auto& e : errors)
            o.errors << QString::fromStdString(e.describe());
        return o;
    }));
}

} // namespace gapscope
