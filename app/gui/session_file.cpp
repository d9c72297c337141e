#include "app/gui/session_file.h"

#include "core/common/atomic_file.h"
#include "core/compare/row_name.h"
#include "core/session/file_kind.h"
#include "core/session/session_document.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace gapscope {

namespace {

constexpr qint64 kMaxSessionFile = qint64(kMaxSessionDocument);

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString resolved(const QDir& folder, const std::string& written) {
    const QString path = q(written);
    return path.isEmpty() || QDir::isAbsolutePath(path) ? path
                                                        : QDir::cleanPath(folder.absoluteFilePath(path));
}

} // namespace

QString writeSessionFile(const QString& path, const SessionFile& session) {
    const auto absolute = [](const QString& p) {
        return p.isEmpty() ? std::string() : QFileInfo(p).absoluteFilePath().toStdString();
    };
    SessionDocument d;
    for (const auto& f : session.files)
        d.files.push_back(absolute(f));
    d.run = session.run;
    d.method = session.method.toStdString();
    d.capture = absolute(session.capture);
    d.debug_buffer = absolute(session.debugBuffer);
    d.threshold = session.threshold;
    d.filter = session.filter.toStdString();
    d.selected_row = session.selectedRow;
    d.selected_op = session.selectedOp.toStdString();
    for (const auto& f : session.compareWith)
        d.compare_with.push_back(absolute(f));
    // Only a session file is replaced: a name typed over a report, a chart or an input is refused.
    const QFileInfo target(path);
    if (target.exists() && target.isFile() && !isSessionFile(path))
        return QStringLiteral("%1: not replaced, it is not a Gapscope session file").arg(path);
    if (auto err = writeFileAtomically(path.toStdString(), sessionDocumentText(d)))
        return q(err->describe());
    return {};
}

bool isSessionFile(const QString& path) {
    // Core tells it, as it tells every other kind of file (issue 57: one mechanism).
    return QFileInfo(path).isFile() && fileKindAt(path.toStdString()) == FileKind::SavedSession;
}

std::optional<SessionFile> readSessionFile(const QString& path, QString* error) {
    auto fail = [&](const QString& why) {
        if (error)
            *error = path + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    const QFileInfo info(path);
    if (!info.isFile())
        return fail(QStringLiteral("not a regular file"));
    if (info.size() > kMaxSessionFile)
        return fail(QStringLiteral("%1 bytes, over the 1 MiB a session file can be").arg(info.size()));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot open for reading (%1)").arg(f.errorString()));
    const QByteArray bytes = f.read(kMaxSessionFile + 1);
    const auto d =
        parseSessionDocument(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    if (!d)
        return fail(q(d.error().message));
    const QDir folder = info.absoluteDir();
    SessionFile s;
    for (const auto& written : d.value().files)
        s.files << resolved(folder, written);
    s.run = d.value().run;
    s.method = q(d.value().method);
    s.capture = resolved(folder, d.value().capture);
    s.debugBuffer = resolved(folder, d.value().debug_buffer);
    s.threshold = d.value().threshold;
    s.filter = q(d.value().filter);
    s.selectedRow = d.value().selected_row;
    s.selectedOp = q(d.value().selected_op);
    for (const auto& written : d.value().compare_with)
        s.compareWith << resolved(folder, written);
    return s;
}

QString sessionFileName(const QString& chosen) {
    static const QString suffix = QStringLiteral(".gapscope.json");
    if (chosen.endsWith(suffix, Qt::CaseInsensitive))
        return chosen;
    if (chosen.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
        return chosen.left(chosen.size() - 5) + suffix;
    return chosen + suffix;
}

std::optional<std::size_t> savedSelection(const SessionFile& view, const Comparison& comparison) {
    if (!view.selectedRow)
        return std::nullopt;
    const auto& rows = comparison.rows;
    const auto holds = [&](std::size_t r) {
        return view.selectedOp.isEmpty() || QString::fromStdString(displayOpName(rows[r])) == view.selectedOp;
    };
    if (*view.selectedRow >= 0 && std::size_t(*view.selectedRow) < rows.size() &&
        holds(std::size_t(*view.selectedRow)))
        return std::size_t(*view.selectedRow);
    for (std::size_t r = 0; !view.selectedOp.isEmpty() && r < rows.size(); ++r)
        if (holds(r))
            return r;
    return std::nullopt;
}

} // namespace gapscope
