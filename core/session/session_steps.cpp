#include "core/session/session_steps.h"

#include "core/common/parallel.h"
#include "core/compare/run_checks.h"
#include "core/session/workspace.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

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
    const std::size_t n = walk.runs.size();
    // A pipeline: every core loads steps (each with its rows measured on that
    // core) while the calling thread visits the loaded ones in step order
    // between its own loads. Steps were loaded a window at a time and visited
    // after the window, so a core idled at each window's end and through the
    // visits (`compare --all-runs` on 65 steps ran at 1.35 cores of 2). At most
    // a window of steps is loaded and not yet visited, whatever the loop's length.
    const std::size_t window = std::max<std::size_t>(4, 2 * std::size_t(defaultThreadCount()));
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::unique_ptr<Session>> loaded(n);
    std::vector<char> ready(n, 0);
    std::size_t nextLoad = 0, nextVisit = 0, done = 0;
    bool stop = false;
    const auto caller = std::this_thread::get_id();
    // Visits step nextVisit (ready); false to stop the walk.
    const auto visitNext = [&](std::unique_lock<std::mutex>& lock) {
        const std::size_t k = nextVisit;
        std::unique_ptr<Session> own = std::move(loaded[k]);
        const Session* step = own.get();
        if (!step && reusable && reuse->comparison->run == walk.runs[k] && !stopped()) {
            step = reuse;
            if (progress)
                progress(++done, n);
        }
        lock.unlock();
        bool go = step && !stopped();
        if (!go)
            walk.cancelled = true;
        else {
            ++walk.visited;
            go = visit(k, walk.runs[k], *step);
        }
        own.reset();
        lock.lock();
        ++nextVisit;
        stop = stop || !go;
        changed.notify_all();
    };
    const auto load = [&](std::unique_lock<std::mutex>& lock) {
        const std::size_t i = nextLoad++;
        lock.unlock();
        std::unique_ptr<Session> step;
        const std::size_t run = walk.runs[i];
        if (!stopped() && !(reusable && reuse->comparison->run == run)) {
            SessionOptions own = options;
            own.comparison.run = run;
            own.comparison.cancelled = cancelled; // a quit does not wait for a whole step
            step = loadSessionFiles(files, own);
            if (stopped())
                step.reset(); // a step cut short is no step
        }
        lock.lock();
        if (step && progress)
            progress(++done, n);
        loaded[i] = std::move(step);
        ready[i] = 1;
        changed.notify_all();
    };
    const auto work = [&](std::size_t) {
        const bool visiting = std::this_thread::get_id() == caller;
        std::unique_lock<std::mutex> lock(mutex);
        while (!stop) {
            if (visiting && nextVisit < n && ready[nextVisit])
                visitNext(lock);
            else if (visiting && nextVisit >= n)
                break;
            else if (nextLoad < n && nextLoad < nextVisit + window)
                load(lock);
            else if (!visiting && nextLoad >= n)
                break;
            else
                changed.wait(lock);
        }
    };
    parallelFor(defaultThreadCount(), work);
    // Helpers may have taken every turn of the loop: the calling thread then
    // visits what they loaded.
    std::unique_lock<std::mutex> lock(mutex);
    while (!stop && nextVisit < n && ready[nextVisit])
        visitNext(lock);
    if (!stop && nextVisit < n)
        walk.cancelled = true;
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
