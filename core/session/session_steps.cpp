#include "core/session/session_steps.h"

#include "core/compare/run_checks.h"
#include "core/session/workspace.h"

#include <algorithm>
#include <filesystem>

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
    for (std::size_t k = 0; k < out.runs.size(); ++k) {
        if (cancelled && cancelled->load()) {
            out.error = "cancelled";
            break;
        }
        options.comparison.run = out.runs[k];
        const auto step = loadSessionFiles(files, options);
        if (!step->comparison) {
            out.error =
                "run " + std::to_string(out.runs[k]) + ": " +
                (step->errors.empty() ? std::string("nothing compared") : step->errors.front().describe());
            break;
        }
        for (const auto& w : step->comparison->warnings)
            if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end())
                out.warnings.push_back(w);
        const std::string capture =
            step->capture_file ? std::filesystem::path(step->capture_file->path()).filename().string() : "";
        out.steps.push_back(summarizeRun(*step->comparison,
                                         "step " + std::to_string(k) + " (" + capture + ")",
                                         step->capture ? referenceProgramDigest(*step->capture) : ""));
        if (progress)
            progress(k + 1, out.runs.size());
    }
    out.runs.resize(out.steps.size());
    return out;
}

} // namespace gapscope
