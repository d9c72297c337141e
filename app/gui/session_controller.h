#pragma once

#include "app/gui/session_file.h"
#include "app/gui/session_loader.h"
#include "app/gui/session_model.h"
#include "core/session/session.h"

#include <QObject>
#include <QStringList>

namespace gapscope {

// What the open session is made of (its files, or the embedded demo, and the run
// compared) and the requests that change it; the loading itself is the
// SessionLoader's. Sessions with a comparison join the recent list.
class SessionController : public QObject {
    Q_OBJECT
public:
    explicit SessionController(QObject* parent = nullptr);

    // Files join the session, replacing files of the same kind (newest first). A
    // saved session file alone opens that session; among others it stands for
    // its files. Returns an error message (an unreadable session file), or empty.
    // With `anew`, they replace the open session instead (Recent, "Open instead").
    QString openPaths(const QStringList& paths, bool anew = false);
    // Starts afresh from exactly these files.
    void openFiles(const QStringList& paths);
    // Files that add to the open session (a debug buffer dropped on the banner):
    // the choices made for it stay.
    void addFiles(const QStringList& paths);
    void openDemo(EmbeddedDemo demo = EmbeddedDemo::Xnnpack);
    // Returns the error message, or an empty string when the session is loading.
    QString openSessionFile(const QString& path);
    // Saves the files and the choices (run, method, capture, debug buffer,
    // threshold) with the view's state (`view`: filter and selected op) to
    // sessionFileName(path). Returns the error message, or empty.
    QString saveSession(const QString& path, const SessionFile& view);
    // The filter and selected op of the session file being opened, until the
    // window has applied them (takeSavedView).
    std::optional<SessionFile> takeSavedView();
    // Reload (F5) gives the view back as it was: kept here until the next load completes.
    void keepView(const SessionFile& view) { m_savedView = view; }
    // Headless runs (--screenshot, --report) do not join the recent list.
    void setRecordsRecent(bool records) { m_recordsRecent = records; }
    // Compares another method (empty: the capture's) or run (none: the method's default run).
    void compare(const QString& method, std::optional<std::size_t> run);
    // Compares against another of the captures given (its path).
    void chooseCapture(const QString& path);
    // A capture just made beside the session's files (CaptureOffer): read from disk
    // with them, as one of its inputs, and chosen.
    void useNewCapture(const QString& path);
    // Reads the file at this path as the debug buffer (one of several candidates).
    void chooseDebugBuffer(const QString& path);
    void cancel();
    // Reads the same files (or demo) again, with the same method and run: a
    // fresh look at the disk (File → Reload), unlike the choices above.
    void reload();

    bool isDemo() const { return m_demo; }
    EmbeddedDemo demoKind() const { return m_demoKind; }
    // The saved session file this session came from or was saved to, if any.
    const QString& sessionFile() const { return m_sessionFile; }
    const QStringList& paths() const { return m_paths; }
    SessionLoader* loader() const { return m_loader; }
    // The session shown, as the views see it, judged by the user's threshold
    // (its one owner: loads are judged by it, a saved session restores it).
    SessionModel* model() const { return m_model; }

signals:
    void recentChanged();
    // Another session replaces the open one (not a reload, another run or an
    // added file): what the user set for the last one (filter, search) goes.
    void sessionReplaced();
    // A saved session was compared with B (the A/B tab): B's files, opened beside it again.
    void compareWithRestored(const QStringList& paths);

private:
    // Another session: the run, method, capture and debug buffer picked for the last one go.
    void forgetChoices();
    // The same files with the options changed: over the loader's workspace, reading
    // no file again (or afresh when no load has delivered one yet).
    void recompare();
    // The recent-sessions entry of the session opened, if not written yet.
    void writePendingRecent();
    // The choices, with the threshold the model judges by.
    SessionOptions options() const;

    SessionLoader* m_loader;
    SessionModel* m_model;
    QStringList m_paths;
    QString m_sessionFile;
    bool m_demo = false;
    EmbeddedDemo m_demoKind = EmbeddedDemo::Xnnpack;
    SessionOptions m_options;
    std::optional<SessionFile> m_savedView;
    bool m_recordsRecent = true;
    QStringList m_pendingRecent; // to write to the recent sessions (writePendingRecent)
};

} // namespace gapscope
