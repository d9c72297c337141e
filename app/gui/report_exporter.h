#pragma once

#include "core/session/session.h"

#include <QString>
#include <memory>

namespace gapscope {

// File → Export report: a folder with the CSV, the JSON report, a PNG of the gap
// chart (of `chartMetric`), a PNG of the tensor panel's plots for each of the
// worst ops and an index.html showing them together. Rendered from the snapshot
// by views of its own, never shown: the window is not touched. Inputs are
// hashed on a background job. Every file is written atomically. Returns an
// error message, or an empty string on success.
QString exportReportFolder(std::shared_ptr<const Session> session, const QString& chartMetric,
                           const QString& folder, int worstOps = 3);

} // namespace gapscope
