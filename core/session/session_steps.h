#pragma once

#include "core/compare/run_summary.h"
#include "core/session/session.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace gapscope {

// Every execution of a session's method compared, each against its own step
// capture where the session offers one per step (as `compare --all-runs`), and
// summarised: the steps view's input. Over the session's workspace: no file is
// read again. Stops between steps once `cancelled` is set (then `error` says so).
// Steps run in parallel: `progress` is called from several threads.
struct SessionSteps {
    std::vector<std::size_t> runs; // the RunData index of each step
    std::vector<RunSummary> steps;
    std::string error; // why there are none (or fewer)
    // What the steps' comparisons warn about, each once (a stateful program
    // compared with one capture at every step is said here).
    std::vector<std::string> warnings;
};
SessionSteps compareSteps(const Session& session, SessionOptions options,
                          const std::atomic<bool>* cancelled = nullptr,
                          const std::function<void(std::size_t done, std::size_t total)>& progress = {});

} // namespace gapscope
