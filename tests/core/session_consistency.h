#pragma once

#include <string>

namespace gapscope::test {

// Reads a demo session directory written by `gapscope-capture demo`
// (model.pte, etrecord.bin, run.etdp, run.debug.bin, capture.gscap.safetensors,
// executorch_gap_{mse,l1,snr}.json) with the C++ core and checks that the
// pieces agree: every runtime event resolves to debug handles of the ETRecord's
// graph, every capture record's handles exist there, and runtime and reference
// tensor shapes agree where they are compared. Reports through Catch2.
void checkSessionConsistency(const std::string& directory);

} // namespace gapscope::test
