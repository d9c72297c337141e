#pragma once

#include <QStringList>
#include <functional>

class QWidget;

namespace gapscope {

// What files dropped (or opened) onto an open session mean, when they are a
// session of their own: open them instead, open them beside as B (the A/B tab),
// or add their files to this session (the old behaviour, which silently mixed
// two sessions' files).
enum class DropAction { Open, Beside, AddFiles, Cancel };
// Asks the user; `canAdd` is false when the open session is a built-in demo.
using DropChooser = std::function<DropAction(const QStringList& paths, bool canAdd)>;
DropAction askDropAction(QWidget* parent, const QStringList& paths, bool canAdd);
// A folder, an ETDump or a saved session: a session of its own. A lone debug
// buffer, capture or ETRecord adds to the open one without a question.
bool startsSession(const QStringList& paths);

} // namespace gapscope
