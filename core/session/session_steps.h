#pragma once

#include "core/runs/run_summary.h"
#include "core/session/session.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gapscope {

// The files every step of `session` is compared over: the file set
// `options.file_set` of `options.workspace` (the opener's: the app's loader)
// sorted again, its captures parsed once in the workspace; or, without one,
// the session's own files (the one capture for every step).
SessionFiles stepFiles(const Session& session, const SessionOptions& options);

// One way to compare every execution of a method (issue 57): the app's steps
// view and `compare --all-runs` both walk the steps with forEachStep.
//
// Every execution of `first`'s method is compared over `files` (stepFiles, or
// the CLI's), each against its own step capture where the files offer one per
// step (AotCapture::step). Steps are compared on every core, one step a core
// (its rows measured there), over the shared, guarded workspace of `options`,
// while the calling thread hands each to `visit` in step order, with its position
// k, its RunData index and its session, so a report can stream step by step.
// `reuse`, when given, is a complete session of one of the runs: it serves that
// run instead of a comparison made again.
//
// Stops when `visit` returns false, or between steps once `cancelled` is set
// (a step cut short is never visited). `progress` (done, total) is called from
// the threads that compared.
struct StepWalk {
    std::vector<std::size_t> runs; // the RunData index of every step of the method
    std::size_t visited = 0;
    bool cancelled = false;
};
using StepVisitor = std::function<bool(std::size_t k, std::size_t run, const Session& step)>;
StepWalk forEachStep(const Session& first, const SessionFiles& files, SessionOptions options,
                     const StepVisitor& visit, const Session* reuse = nullptr,
                     const std::atomic<bool>* cancelled = nullptr,
                     const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// Every step summarised: the steps view's input. Over `options.workspace` and
// its file set `options.file_set`, the ones `session` was opened from (no file
// is read again).
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
