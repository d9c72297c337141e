#pragma once

#include "core/compare/comparison.h"
#include "core/compare/metric_catalog.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace gapscope {

// A saved session: its files and everything the user chose about how it is
// compared and looked at, so that reopening it shows the same thing
// (docs/gui.md, "Saved sessions"): core's SessionDocument (its format is
// described in core/session/session_document.h) with Qt strings and paths
// resolved. Paths are written absolute; a relative one (a hand-written or moved
// file) is read against the session file's folder, never the current directory.
struct SessionFile {
    QStringList files;
    std::optional<int> run;
    QString method; // empty: the capture's
    QString capture;
    QString debugBuffer;
    std::optional<MetricThreshold> threshold;
    QString filter;
    std::optional<int> selectedRow;
    QString selectedOp;      // the row's op name: a row index alone may name another op if the files changed
    QStringList compareWith; // B's files (the A/B tab), reopened beside the session
};

// The row a saved view selected, among the comparison's rows: its index while that row still
// holds the saved op, else the first row that does (the files may have changed
// since it was saved); none when no row holds it.
std::optional<std::size_t> savedSelection(const SessionFile& view, const Comparison& comparison);

// Error message (which file, which key, what was wrong), or empty.
QString writeSessionFile(const QString& path, const SessionFile& session);
std::optional<SessionFile> readSessionFile(const QString& path, QString* error = nullptr);
// A regular file of at most 1 MiB holding the "gapscope_session" key: how Open,
// the command line and a drop tell a saved session from the files of one
// (never by its name, and never reading a multi-GB dump or blocking on a FIFO).
// Whether it is a valid one, readSessionFile says.
bool isSessionFile(const QString& path);
// The name Save Session writes: the user's, with ".gapscope.json" added when it
// lacks it ("run" and "run.json" become "run.gapscope.json"; "chart.png" becomes
// "chart.png.gapscope.json", never session JSON inside a PNG's name).
QString sessionFileName(const QString& chosen);

} // namespace gapscope
