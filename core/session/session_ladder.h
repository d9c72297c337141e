#pragma once

#include "core/common/mapped_file.h"
#include "core/compare/stage_ladder.h"
#include "core/session/session.h"

#include <memory>
#include <string>
#include <vector>

namespace gapscope {

// The captures a session's stage ladder reads (issue 59): every capture offered
// beside the session, then those `gapscope-capture stages` wrote into its
// `stages/` folder (`folder`: the session's folder; none when its files were
// given one by one), told by content. Opened read-only and protected from every
// output; a file that cannot be opened is a note, never a stop.
std::vector<std::shared_ptr<const MappedFile>>
ladderCaptures(const SessionFiles& files, const std::string& folder, std::vector<std::string>& notes);

// The ladder of `base`'s comparison: `base` is compared again, the same run and
// method, against each capture of `captures` (its own included), through
// `options.workspace` (the ETDump and ETRecord are read once). A capture of
// another method or step, one whose stage cannot be told, or one that cannot
// be compared is left out with a note.
StageLadder openStageLadder(const Session& base, const SessionFiles& files,
                            const std::vector<std::shared_ptr<const MappedFile>>& captures,
                            SessionOptions options);

// The ladder of a complete session as the app shows it: its files taken from
// `options.workspace`'s file set `options.file_set` (stepFiles), the
// captures beside it and in the `stages/` folder beside its ETDump. Null
// `cancelled` or unset: runs to the end; once set, what is built so far is
// dropped by the caller.
StageLadder ladderOfSession(const Session& session, const SessionOptions& options);

} // namespace gapscope
