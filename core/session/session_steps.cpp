#include "core/session/session_steps.h"

#include "core/common/parallel.h"
#include "core/compare/run_checks.h"
#include "core/session/workspace.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <optional>

namespace gapscope {

SessionSteps compareSteps(const Session& session, SessionOptions options, const std::atomic<bool>* cancelled,
                          const std::function<void(std::size_t, std::size_t)>& progress) {
    SessionSteps out;
    if (!session.comparison || !session.dump) {
        out.error = "nothing is compared";
        return out;
    }
    const auto& c = *session.comparison;
    out.runs = executionsOf(*session.dump, c.method, c.run_methods);
    SessionFiles files;
    const auto set = session.workspace ? session.workspace->fileSet(session.file_set) : nullptr;
    if (set) {
        files = sortSessionFiles(set->inputs, c.method, options.capture, options.debug_buffer,
                                 session.workspace.get());
    } else { // files sorted by hand: the one capture for every step
        files.etdump = session.etdump_file;
        files.debug_buffer = session.debug_buffer_file;
        files.etrecord = session.etrecord_file;
        files.capture = session.capture_file;
    }
    options.workspace = session.workspace;
    options.file_set = session.file_set;
    options.comparison.method = c.method;
    options.progress = {};
    // Steps in parallel: each is a comparison of its own over the shared, guarded
    // workspace (its rows are measured in parallel inside, too).
    struct Step {
        std::optional<RunSummary> summary;
        std::vector<std::string> warnings;
        std::string error;
    };
    std::vector<Step> results(out.runs.size());
    std::atomic<std::size_t> done{0};
    parallelFor(out.runs.size(), [&](std::size_t k) {
        if (cancelled && cancelled->load())
            return;
        SessionOptions own = options;
        own.comparison.run = out.runs[k];
        own.comparison.cancelled = cancelled; // a quit does not wait for a whole step
        const auto step = loadSessionFiles(files, own);
        if (cancelled && cancelled->load())
            return; // a step cut short is no step: never summarised

        if (!step->comparison) {
            results[k].error =
                "run " + std::to_string(out.runs[k]) + ": " +
                (step->errors.empty() ? std::string("nothing compared") : step->errors.front().describe());
            return;
        }
        results[k].warnings = step->comparison->warnings;
        const std::string capture =
            step->capture_file ? std::filesystem::path(step->capture_file->path()).filename().string() : "";
        results[k].summary =
            summarizeRun(*step->comparison, "step " + std::to_string(k) + " (" + capture + ")",
                         runReference(step->capture.get()));
        if (progress)
            progress(++done, out.runs.size());
    });
    // In step order, up to the first that could not be compared.
    for (auto& r : results) {
        if (!r.summary) {
            out.error = !r.error.empty() ? r.error : "cancelled";
            break;
        }
        for (const auto& w : r.warnings)
            if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end())
                out.warnings.push_back(w);
        out.steps.push_back(std::move(*r.summary));
    }
    out.runs.resize(out.steps.size());
    return out;
}

} // namespace gapscope
