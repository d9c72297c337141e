#pragma once

#include "core/session/session.h"

#include <QString>

namespace gapscope {

class SessionController;

// What the window calls the session it shows, and where it offers to write
// exports: read from the controller (its files, saved file, demo) and the
// snapshot (the method compared), never from a widget.
struct SessionNaming {
    const SessionController& sessions;
    const Session* snapshot; // may be null

    // The method compared when it is not "forward" (the title and file names say it); else empty.
    QString comparedMethod() const;
    // Its saved file's name, its folder's, or the demo's.
    QString name() const;
    // "parent/folder · method — Gapscope": a folder's last name alone is often
    // "portable" or "int8", so its parent says of what (issue 56).
    QString title() const;
    // The session's folder, named after the session ("mobilenet" + "-report");
    // the home folder for a demo.
    QString defaultOutput(const QString& suffix) const;
};

} // namespace gapscope
