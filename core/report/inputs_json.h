#pragma once

#include "core/capture/aot_capture.h"
#include "core/etrecord/etrecord_model.h"

#include <nlohmann/json.hpp>

namespace gapscope {

// JSON summaries printed by `gapscope-cli etrecord --json` and
// `gapscope-cli capture --json` (docs/cli.md).
nlohmann::ordered_json etrecordToJson(const EtRecord& record);
nlohmann::ordered_json captureToJson(const AotCapture& capture);

} // namespace gapscope
