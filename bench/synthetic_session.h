#pragma once

#include "core/common/diagnostics.h"

#include <optional>
#include <string>

namespace gapscope::bench {

// Writes a synthetic session into `out`: a QNN-style ETDump whose events are
// named `<op>__debugID_<N>` (so no ETRecord is needed), its debug buffer, and an
// AOT capture whose reference outputs drift from the runtime's by an amount that
// grows 3% per op, with a 200x jump at op ops/3. Tensors are 1 x side x side
// float32 with side = floor(sqrt(elements)). Deterministic (fixed seed).
// Normal values come from std::normal_distribution; Fast values from a cheap
// generator (uniform in [-1, 1)), for sessions of many GiB. With runs > 1 the
// ETDump holds that many executions, run k drifting k + 1 times as far; with
// `stepCaptures` as well, a capture per execution (AotCapture::step = k, files
// capture.step-NNN.gscap.safetensors): a decode loop for the steps view. With
// `profiled`, each run also logs what QNN's profile level 2 logs: a cycles event
// per op ("<op>:OpId_<i> (cycles)"), the DELEGATE_CALL and Method::execute.
enum class SyntheticValues { Normal, Fast };
std::optional<Error> writeSyntheticSession(const std::string& out, int ops, int elements,
                                           SyntheticValues values = SyntheticValues::Normal, int runs = 1,
                                           bool stepCaptures = false, bool profiled = false);

} // namespace gapscope::bench
