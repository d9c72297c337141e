#pragma once

#include <string>

namespace gapscope::bench {

// Every gap metric over 16 Mi float32 pairs: one thread against a bare
// difference sum over the same bytes, and every core against one thread.
// Appends its fields to json (a JSON object's members, each led by a comma).
void benchGap(std::string& json);

} // namespace gapscope::bench
