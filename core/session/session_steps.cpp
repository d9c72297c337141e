#include "core/session/session_steps.h"

#include "core/common/ordered_pipeline.h"
#include "core/common/parallel.h"
#include "core/compare/run_checks.h"
#include "core/session/workspace.h"

#include <algorithm>
#include <atomic>
#include <filesystem>

namespace gapscope {

SessionFiles stepFiles(const Session& session, const SessionOptions& options) {
    SessionFiles files;
    const auto set = options.workspace ? options.workspace->fileSet(options.file_set) : nullptr;
    const std::string method = session.comparison ? session.comparison->method : std::string();
    if (set) {
        files = sortSessionFiles(set->inputs, method, options.capture, options.debug_buffer,
                                 options.workspace.get());
    } else {
        files.etdump = session.etdump_file;
        files.debug_buffer = session.debug_buffer_file;
        files.etrecord = session.etrecord_file;
        files.capture = session.capture_file;
    }
    return files;
}

StepWalk forEachStep(const Session& first, const SessionFiles& files, SessionOptions options,
                     const StepVisitor& visit, const Session* reuse, const std::atomic<bool>* cancelled,
                     const std::function<void(std::size_t, std::size_t)>& progress) {
    StepWalk walk;
    if (!first.comparison || !first.dump)
        return walk;
    const auto& c = *first.comparison;
    walk.runs = executionsOf(*first.dump, c.method, c.run_methods, c.saved_outputs != nullptr);
    if (!options.workspace) // the steps share one at least: the ETDump is read once
        options.workspace = std::make_shared<Workspace>();
    options.comparison.method = c.method;
    options.progress = {};
    const auto stopped = [&] { return cancelled && cancelled->load(); };
    const bool reusable = reuse && reuse->complete && reuse->comparison;
    // Steps loaded on every core (each with its rows measured on that core),
    // visited in order on this thread (orderedPipeline); at most a window of
    // them loaded and not yet visited, whatever the loop's length.
    const std::size_t n = walk.runs.size();
    const std::size_t window = std::max<std::size_t>(4, 2 * std::size_t(defaultThreadCount()));
    std::vector<std::unique_ptr<Session>> loaded(n);
    std::atomic<std::size_t> done{0};
    const auto isReused = [&](std::size_t k) { return reusable && reuse->comparison->run == walk.runs[k]; };
    const auto load = [&](std::size_t i) {
        if (stopped() || isReused(i))
            return;
        SessionOptions own = options;
        own.comparison.run = walk.runs[i];
        own.comparison.cancelled = cancelled; // a quit does not wait for a whole step
        auto step = loadSessionFiles(files, own);
        if (stopped())
            return; // a step cut short is no step
        loaded[i] = std::move(step);
        if (progress)
            progress(++done, n);
    };
    const auto visitStep = [&](std::size_t k) {
        const std::unique_ptr<Session> own = std::move(loaded[k]);
        const Session* step = own.get();
        if (!step && isReused(k)) {
            step = reuse;
            if (progress)
                progress(++done, n);
        }
        if (!step || stopped()) {
            walk.cancelled = true;
            return false;
        }
        ++walk.visited;
        return visit(k, walk.runs[k], *step);
    };
    orderedPipeline(n, window, load, visitStep);
    return walk;
}

SessionSteps compareSteps(const Session& session, SessionOptions options, const std::atomic<bool>* cancelled,
                          const std::function<void(std::size_t, std::size_t)>& progress) {
    SessionSteps out;
    if (!session.comparison || !session.dump) {
        out.error = "nothing is compared";
        return out;
    }
    const SessionFiles files = stepFiles(session, options);
    const auto walk = forEachStep(
        session, files, options,
        [&](std::size_t k, std::size_t run, const Session& step) {
            // In step order, up to the first that could not be compared.
            if (!step.comparison) {
                out.error =
                    "run " + std::to_string(run) + ": " +
                    (step.errors.empty() ? std::string("nothing compared") : step.errors.front().describe());
                return false;
            }
            for (const auto& w : step.comparison->warnings)
                if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end())
                    out.warnings.push_back(w);
            const std::string capture =
                step.capture_file ? std::filesystem::path(step.capture_file->path()).filename().string() : "";
            out.steps.push_back(summarizeRun(*step.comparison,
                                             "step " + std::to_string(k) + " (" + capture + ")",
                                             runReference(step.capture.get())));
            out.runs.push_back(run);
            return true;
        },
        nullptr, cancelled, progress);
    if (walk.cancelled && out.error.empty())
        out.error = "cancelled";
    return out;
}

} // namespace gapscope
