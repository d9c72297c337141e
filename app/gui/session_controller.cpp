#include "app/gui/session_controller.h"

#include "app/gui/app_settings.h"
#include "app/gui/session_loader.h"

namespace gapscope {

SessionController::SessionController(QObject* parent) : QObject(parent), m_loader(new SessionLoader(this)) {
    connect(m_loader, &SessionLoader::opened, this, [this](std::shared_ptr<const Session> session) {
        if (m_demo || !session->comparison)
            return;
        AppSettings().addRecentSession(m_paths);
        emit recentChanged();
    });
}

void SessionController::openPaths(const QStringList& paths) {
    QStringList merged = paths;
    if (!m_demo)
        for (const auto& p : m_paths)
            if (!merged.contains(p))
                merged << p;
    openFiles(merged);
}

void SessionController::openFiles(const QStringList& paths) {
    m_paths = paths;
    m_demo = false;
    m_options.comparison.run.reset();
    m_options.comparison.method.clear();
    reload();
}

void SessionController::openDemo(EmbeddedDemo demo) {
    m_paths.clear();
    m_demo = true;
    m_demoKind = demo;
    m_options.comparison.run.reset();
    m_options.comparison.method.clear();
    reload();
}

QString SessionController::openSessionFile(const QString& path) {
    QString error;
    const auto s = readSessionFile(path, &error);
    if (!s)
        return error;
    m_paths = s->files;
    m_demo = false;
    m_options.comparison.run =
        s->run ? std::optional<std::size_t>(static_cast<std::size_t>(*s->run)) : std::nullopt;
    m_options.comparison.method = s->method.toStdString();
    reload();
    return {};
}

QString SessionController::saveSession(const QString& path) const {
    if (m_demo || m_paths.isEmpty())
        return tr("Could not save the session: %1")
            .arg(m_demo ? tr("the demo lives inside the app") : tr("no files are open"));
    SessionFile s;
    s.files = m_paths;
    if (m_options.comparison.run)
        s.run = static_cast<int>(*m_options.comparison.run);
    s.method = QString::fromStdString(m_options.comparison.method);
    return writeSessionFile(path, s);
}

void SessionController::compare(const QString& method, std::optional<std::size_t> run) {
    m_options.comparison.method = method.toStdString();
    m_options.comparison.run = run;
    reload();
}

void SessionController::cancel() {
    m_loader->cancel();
}

void SessionController::reload() {
    if (m_demo)
        m_loader->loadDemo(m_demoKind, m_options);
    else
        m_loader->loadPaths(m_paths, m_options);
}

} // namespace gapscope
