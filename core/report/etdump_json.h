#pragma once

#include "core/etdump/etdump_model.h"

#include <nlohmann/json.hpp>

namespace gapscope {

// The document printed by `gapscope-cli dump --json` (schema in docs/cli.md):
// every run and event with its fields under their schema names, tensor metadata,
// the state of each tensor's bytes and, when present, float64 statistics.
nlohmann::ordered_json etdumpToJson(const EtDump& dump);

// JSON has no NaN or infinity; those become the strings "NaN", "Infinity" and
// "-Infinity" (documented in docs/cli.md), everything else stays a number.
nlohmann::ordered_json jsonNumber(double x);

} // namespace gapscope
