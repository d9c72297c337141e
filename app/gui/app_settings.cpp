#include "app/gui/app_settings.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QSplitter>
#include <algorithm>
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
void AppSettings::restoreSplitters(const QWidget& root) const {
    for (auto* splitter : root.findChildren<QSplitter*>())
        if (const auto state = QSettings().value(QStringLiteral("window/splitter/") + splitter->objectName());
            !splitter->objectName().isEmpty() && !state.toByteArray().isEmpty())
            splitter->restoreState(state.toByteArray());
}
void AppSettings::saveSplitters(const QWidget& root) {
    for (auto* splitter : root.findChildren<QSplitter*>())
        if (!splitter->objectName().isEmpty())
            QSettings().setValue(QStringLiteral("window/splitter/") + splitter->objectName(),
                                 splitter->saveState());
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
    for (const auto& v : QSettings().value(kRecent).toList()) {
        const QStringList files = v.toStringList();
        // An older Gapscope stored paths as given: relative to a directory it did not record.
        if (!files.isEmpty() &&
            std::all_of(files.begin(), files.end(), [](const QString& f) { return QDir::isAbsolutePath(f); }))
            out << files;
    }
    return out;
}

void AppSettings::addRecentSession(const QStringList& given) {
    if (given.isEmpty())
        return;
    QStringList files; // absolute: the list is used from any directory
    for (const auto& f : given)
        files << QFileInfo(f).absoluteFilePath();
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

} // namespace gapscope
