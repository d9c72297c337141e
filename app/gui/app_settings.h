#pragma once

#include "core/compare/metric_catalog.h"

#include <QByteArray>

class QWidget;
#include <QString>
#include <QStringList>
#include <optional>

namespace gapscope {

// Every persisted setting behind one typed object: no string keys scattered
// through the UI.
class AppSettings {
public:
    static constexpr int kMaxRecent = 8;

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& state);

    // Every named QSplitter under `root`, as it was left (each by its object name).
    void restoreSplitters(const QWidget& root) const;
    void saveSplitters(const QWidget& root);
    // The op table's header, for the table's column count (empty when saved for another).
    QByteArray tableHeaderState(int columns) const;
    void setTableHeaderState(const QByteArray& state, int columns);

    Metric chartMetric() const; // default rel_l2
    void setChartMetric(Metric metric);
    // The first-divergence threshold; default SNR 20 dB (the CLI's default).
    MetricThreshold threshold() const;
    void setThreshold(const MetricThreshold& threshold);

    // Recent sessions, newest first; each is the list of files it was opened from.
    QList<QStringList> recentSessions() const;
    void addRecentSession(const QStringList& files);
    // A session saved to a file replaces the entry of its files: one entry each.
    void replaceRecentSession(const QStringList& files, const QString& sessionFile);
};

} // namespace gapscope
