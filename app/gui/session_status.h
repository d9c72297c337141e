#pragma once

#include "core/session/session.h"

#include <QString>
#include <optional>

namespace gapscope {

// "1 op" / "3 ops": counts read right at one.
QString countOf(std::size_t n, const QString& one, const QString& many);

// The status bar's line for a finished load: how many ops were aligned and how
// many have numbers (no runtime tensor: none), the first divergence ⚑ or, when
// no op crosses the threshold, that this is so and which op is worst, and the
// op where the error grows most ▲.
struct SessionStatus {
    QString text;
    // No op crosses the threshold: the worst op by its metric, offered as a link.
    std::optional<std::size_t> worst;
    QString worstLink;
};
SessionStatus describeSession(const Session& session, std::optional<std::size_t> topIntroducer);

} // namespace gapscope
