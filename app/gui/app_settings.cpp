#include "app/gui/app_settings.h"

#include "core/common/atomic_file.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <cmath>

namespace gapscope {

namespace {
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kMetric = QStringLiteral("chart/metric");
const QString kRecent = QStringLiteral("sessions/recent");
} // namespace

QByteArray AppSettings::windowGeometry() const {
    return QSettings().value(kGeometry).toByteArray();
}
void AppSettings::setWindowGeometry(const QByteArray& g) {
    QSettings().setValue(kGeometry, g);
}
QByteArray AppSettings::windowState() const {
    return QSettings().value(kState).toByteArray();
}
void AppSettings::setWindowState(const QByteArray& s) {
    QSettings().setValue(kState, s);
}
QByteArray AppSettings::splitterState(const QString& name) const {
    return QSettings().value(QStringLiteral("window/splitter/") + name).toByteArray();
}
void AppSettings::setSplitterState(const QString& name, const QByteArray& state) {
    QSettings().setValue(QStringLiteral("window/splitter/") + name, state);
}
QByteArray AppSettings::tableHeaderState(int columns) const {
    // A state saved for another set of columns (an older Gapscope) would put widths
    // and order on the wrong columns: the automatic layout is better.
    QSettings settings;
    if (settings.value(QStringLiteral("table/columns")).toInt() != columns)
        return {};
    return settings.value(QStringLiteral("table/header")).toByteArray();
}
void AppSettings::setTableHeaderState(const QByteArray& state, int columns) {
    QSettings settings;
    settings.setValue(QStringLiteral("table/header"), state);
    settings.setValue(QStringLiteral("table/columns"), columns);
}

Metric AppSettings::chartMetric() const {
    const auto metric = findMetric(QSettings().value(kMetric).toString().toStdString());
    return metric && metric->charted ? metric->id : Metric::RelL2; // unset, hand-edited or stale
}
void AppSettings::setChartMetric(Metric metric) {
    QSettings().setValue(kMetric, QString::fromLatin1(metricInfo(metric).name));
}

MetricThreshold AppSettings::threshold() const {
    QSettings s;
    const auto metric = findMetric(s.value(QStringLiteral("threshold/metric"),
                                           QString::fromStdString(metricName(kDefaultThreshold.metric)))
                                       .toString()
                                       .toStdString());
    bool ok = false;
    const double value = s.value(QStringLiteral("threshold/value"), kDefaultThreshold.value).toDouble(&ok);
    if (!metric || !ok || !std::isfinite(value))
        return kDefaultThreshold; // a hand-edited or stale setting
    return {metric->id, value};
}
void AppSettings::setThreshold(const MetricThreshold& threshold) {
    QSettings s;
    s.setValue(QStringLiteral("threshold/metric"), QString::fromStdString(metricName(threshold.metric)));
    s.setValue(QStringLiteral("threshold/value"), threshold.value);
}

QList<QStringList> AppSettings::recentSessions() const {
    QList<QStringList> out;
    for (const auto& v : QSettings().value(kRecent).toList())
        out << v.toStringList();
    return out;
}

void AppSettings::addRecentSession(const QStringList& files) {
    if (files.isEmpty())
        return;
    QList<QStringList> recent = recentSessions();
    recent.removeAll(files);
    recent.prepend(files);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    QVariantList stored;
    for (const auto& r : recent)
        stored << r;
    QSettings().setValue(kRecent, stored);
}

void AppSettings::replaceRecentSession(const QStringList& files, const QString& sessionFile) {
    QList<QStringList> recent = recentSessions();
    recent.removeAll(files);
    QVariantList stored;
    for (const auto& r : recent)
        stored << r;
    QSettings().setValue(kRecent, stored);
    addRecentSession({sessionFile});
}

QString writeSessionFile(const QString& path, const SessionFile& session) {
    QJsonObject o;
    o[QStringLiteral("gapscope_session")] = 1;
    QJsonArray files;
    for (const auto& f : session.files)
        files.append(QFileInfo(f).absoluteFilePath());
    o[QStringLiteral("files")] = files;
    o[QStringLiteral("run")] = session.run ? QJsonValue(*session.run) : QJsonValue();
    if (!session.method.isEmpty())
        o[QStringLiteral("method")] = session.method;
    const QByteArray bytes = QJsonDocument(o).toJson();
    if (auto err = writeFileAtomically(
            path.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()))))
        return QString::fromStdString(err->describe());
    return {};
}

bool isSessionFile(const QString& path) {
    const QFileInfo info(path);
    if (!info.isFile() || info.size() > (1 << 20))
        return false;
    // Claimed by its key, so that a broken one is reported as a session file.
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(1 << 20).contains("\"gapscope_session\"");
}

std::optional<SessionFile> readSessionFile(const QString& path, QString* error) {
    auto fail = [&](const QString& why) {
        if (error)
            *error = path + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot open for reading"));
    QJsonParseError parse;
    const auto doc = QJsonDocument::fromJson(f.readAll(), &parse);
    if (parse.error != QJsonParseError::NoError)
        return fail(QStringLiteral("not JSON (%1 at byte %2)").arg(parse.errorString()).arg(parse.offset));
    const auto o = doc.object();
    if (o.value(QStringLiteral("gapscope_session")).toInt() != 1)
        return fail(QStringLiteral("not a Gapscope session file (no \"gapscope_session\": 1)"));
    SessionFile s;
    for (const auto& v : o.value(QStringLiteral("files")).toArray())
        s.files << v.toString();
    if (o.value(QStringLiteral("run")).isDouble())
        s.run = o.value(QStringLiteral("run")).toInt();
    s.method = o.value(QStringLiteral("method")).toString();
    if (s.files.isEmpty())
        return fail(QStringLiteral("the session lists no files"));
    return s;
}

} // namespace gapscope
