#pragma once

#include "core/profile/profile_table.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace gapscope {

// The timing table as JSON (docs/profiling.md): `events` is a list, one entry
// per event of every block, with the Inspector's own column names
// (event_block_name, event_name, raw, p10, p50, p90, avg, min, max,
// is_delegated_op, delegate_backend_name, delegate_debug_identifier) in the
// table's target time scale (`time_scale`), and Gapscope's `runs`,
// `instruction_id` and `framework` beside them. An event without profiling has
// null statistics, as the Inspector's None.
nlohmann::ordered_json profileToJson(const ProfileTable& table);

// The same rows as CSV (cells from inputs neutralised as formulas, safe_text.h).
void writeProfileCsv(std::ostream& out, const ProfileTable& table);

// A text table for the terminal: block, event, runs, p50, avg, min, max, delegated.
void writeProfileText(std::ostream& out, const ProfileTable& table);

} // namespace gapscope
