#pragma once

#include "core/compare/stage_ladder.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace gapscope {

// The stage ladder (stage_ladder.h): the report's `ladder` object, and the
// table the CLI prints after the comparison's.
nlohmann::ordered_json stageLadderToJson(const StageLadder& ladder);
void writeStageLadder(std::ostream& out, const StageLadder& ladder);

} // namespace gapscope
