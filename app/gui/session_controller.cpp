#include "app/gui/session_controller.h"

#include "app/gui/app_settings.h"
#include "app/gui/session_loader.h"
#include "core/session/companion_files.h"
#include "core/session/session.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>
#include <utility>

namespace gapscope {

namespace {

// Told by core's file kinds, as a saved session is (isSessionFile): an ETDump,
// or a backend's run in its place (a TOSA run).
bool recordsARunFile(const QString& path) {
    const auto kind = fileKindAt(path.toStdString());
    return kind && recordsARun(*kind);
}

} // namespace

SessionController::SessionController(QObject* parent)
    : QObject(parent), m_loader(new SessionLoader(this)),
      m_model(new SessionModel(m_loader, AppSettings().threshold(), this)) {
    connect(m_loader, &SessionLoader::opened, this, [this](std::shared_ptr<const Session> session) {
        if (m_demo || !session->comparison || !m_sessionFile.isEmpty() || !m_recordsRecent)
            return; // a saved session is listed by its file
        // Written a moment later, not in this slot: QSettings writes and fsyncs
        // the file (7 ms), and this slot shows the table; the page's first paint
        // follows in the same turn. By the time the load completes it is written.
        m_pendingRecent = m_paths;
        QTimer::singleShot(1, this, [this] { writePendingRecent(); });
    });
    connect(m_loader, &SessionLoader::completed, this, [this] { writePendingRecent(); });
}

void SessionController::writePendingRecent() {
    if (m_pendingRecent.isEmpty())
        return;
    AppSettings().addRecentSession(std::exchange(m_pendingRecent, {}));
    emit recentChanged();
}

QString SessionController::openPaths(const QStringList& given, bool anew) {
    // Absolute: the session is saved, listed and reloaded from any directory.
    QStringList paths;
    for (const auto& p : given)
        paths << QFileInfo(p).absoluteFilePath();
    // A saved session given alone opens as saved (its files and choices).
    if (paths.size() == 1 && isSessionFile(paths.front()))
        return openSessionFile(paths.front());
    QStringList merged;
    for (const auto& p : paths) {
        // Among other files, a saved session stands for its files.
        if (isSessionFile(p)) {
            QString error;
            const auto saved = readSessionFile(p, &error);
            if (!saved)
                return error;
            merged << saved->files;
        } else {
            merged << p;
        }
    }
    const bool startingOver = anew || m_demo || m_paths.isEmpty();
    // A dump opened alone (double click, `gapscope run.etdp`) brings the ETRecord
    // and captures beside it; added to an open session it is just one more file.
    if (startingOver && merged.size() == 1 && recordsARunFile(merged.front()))
        for (const auto& companion : companionFilesOf(merged.front().toStdString()))
            merged << QString::fromStdString(companion);
    if (startingOver)
        openFiles(merged);
    else
        addFiles(merged);
    return {};
}

void SessionController::addFiles(const QStringList& paths) {
    QStringList merged = paths;
    for (const auto& p : m_paths)
        if (!merged.contains(p))
            merged << p;
    m_paths = merged;
    // A file named now fills its slot (docs/gui.md): no earlier pick overrides it.
    m_options.debug_buffer.clear();
    m_options.capture.clear();
    reload();
}

void SessionController::forgetChoices() {
    m_options.comparison.run.reset();
    m_options.comparison.method.clear();
    m_options.capture.clear();
    m_options.debug_buffer.clear();
    m_savedView.reset();
}

void SessionController::openFiles(const QStringList& paths) {
    m_paths.clear();
    for (const auto& p : paths)
        m_paths << QFileInfo(p).absoluteFilePath();
    m_sessionFile.clear();
    m_demo = false;
    forgetChoices();
    emit sessionReplaced();
    reload();
}

void SessionController::openDemo(EmbeddedDemo demo) {
    m_paths.clear();
    m_sessionFile.clear();
    m_demo = true;
    m_demoKind = demo;
    forgetChoices();
    emit sessionReplaced();
    reload();
}

QString SessionController::openSessionFile(const QString& path) {
    QString error;
    const auto s = readSessionFile(path, &error);
    if (!s)
        return error;
    m_paths = s->files;
    // The capture and debug buffer it names are opened even where `files` does
    // not list them (issue 55, class 6: they were ignored, and the files beside
    // the ETDump used without a word); opening refuses what is not a file.
    for (const QString& named : {s->capture, s->debugBuffer})
        if (!named.isEmpty() && !m_paths.contains(named))
            m_paths << named;
    m_sessionFile = QFileInfo(path).absoluteFilePath();
    m_demo = false;
    if (m_recordsRecent) {
        AppSettings().addRecentSession({m_sessionFile}); // reopened as saved, from the welcome page too
        emit recentChanged();
    }
    forgetChoices();
    m_options.comparison.run =
        s->run ? std::optional<std::size_t>(static_cast<std::size_t>(*s->run)) : std::nullopt;
    m_options.comparison.method = s->method.toStdString();
    m_options.capture = s->capture.toStdString();
    m_options.debug_buffer = s->debugBuffer.toStdString();
    emit sessionReplaced();
    if (s->threshold)
        m_model->setThreshold(*s->threshold); // the editor shows it; not the user's remembered one
    m_savedView = *s;
    reload();
    if (!s->compareWith.isEmpty())
        emit compareWithRestored(s->compareWith); // after sessionReplaced, which closed the last B
    return {};
}

SessionOptions SessionController::options() const {
    SessionOptions judged = m_options;
    judged.threshold = m_model->threshold();
    return judged;
}

std::optional<SessionFile> SessionController::takeSavedView() {
    return std::exchange(m_savedView, std::nullopt);
}

QString SessionController::saveSession(const QString& chosen, const SessionFile& view) {
    if (m_demo || m_paths.isEmpty())
        return tr("Could not save the session: %1")
            .arg(m_demo ? tr("the demo is built into the app, there are no files to list")
                        : tr("no files are open"));
    SessionFile s = view;
    s.files = m_paths;
    if (m_options.comparison.run)
        s.run = static_cast<int>(*m_options.comparison.run);
    s.method = QString::fromStdString(m_options.comparison.method);
    s.capture = QString::fromStdString(m_options.capture);
    s.debugBuffer = QString::fromStdString(m_options.debug_buffer);
    s.threshold = m_model->threshold();
    const QString path = QFileInfo(sessionFileName(chosen)).absoluteFilePath();
    if (m_paths.contains(path))
        return tr("Could not save the session: %1 is one of its inputs").arg(path);
    const QString error = writeSessionFile(path, s);
    if (error.isEmpty()) {
        m_sessionFile = path;
        AppSettings().replaceRecentSession(m_paths, path);
        emit recentChanged();
    }
    return error;
}

void SessionController::compare(const QString& method, std::optional<std::size_t> run) {
    m_options.comparison.method = method.toStdString();
    m_options.comparison.run = run;
    recompare();
}

void SessionController::chooseCapture(const QString& path) {
    m_options.capture = path.toStdString();
    recompare();
}

void SessionController::useNewCapture(const QString& path) {
    const QFileInfo made(path);
    const bool inFolder = std::any_of(m_paths.begin(), m_paths.end(), [&](const QString& p) {
        const QFileInfo given(p);
        return given.isDir() && given.canonicalFilePath() == made.absoluteDir().canonicalPath();
    });
    if (!inFolder && !m_paths.contains(path))
        m_paths << path;
    m_options.capture = path.toStdString();
    reload(); // a fresh look at the disk: the new file is among the inputs
}

void SessionController::chooseDebugBuffer(const QString& path) {
    m_options.debug_buffer = path.toStdString();
    recompare();
}

void SessionController::cancel() {
    m_loader->cancel();
}

void SessionController::recompare() {
    if (!m_loader->recompare(options()))
        reload();
}

void SessionController::reload() {
    if (m_demo)
        m_loader->loadDemo(m_demoKind, options());
    else
        m_loader->loadPaths(m_paths, options());
}

} // namespace gapscope
