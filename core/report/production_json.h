#pragma once

#include "core/compare/production_check.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace gapscope {

// The tapped build against production (production_check.h): the report's
// `production` object, and the lines the CLI prints.
nlohmann::ordered_json productionCheckToJson(const ProductionCheck& check);
void writeProductionCheck(std::ostream& out, const ProductionCheck& check);

} // namespace gapscope
