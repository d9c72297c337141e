#include "core/compare/run_choice.h"

#include "core/align/run_methods.h"
#include "core/compare/run_checks.h"

#include <algorithm>
#include <string_view>

namespace gapscope {

std::size_t defaultRun(const EtDump& dump) {
    for (std::size_t r = 0; r < dump.runs.size(); ++r)
        for (const auto& e : dump.runs[r].events)
            if (std::holds_alternative<DebugEvent>(e))
                return r;
    return dump.runs.empty() ? 0 : dump.runs.size() - 1;
}

std::string quotedNames(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "'" : ", '") + n + "'";
    return out;
}

// A multi-method ETDump does not say which run is which method: the default run
// is the first whose events fit the method, and a run asked for that fits
// another method says so. Single-method programs keep the first run with debug
// events, as ExecuTorch's Inspector does.
std::size_t chooseRun(const EtDump& dump, const EtRecord* etrecord, const ComparisonOptions& options,
                      Comparison& c) {
    const bool multi = etrecord && isMultiMethod(*etrecord);
    if (multi)
        c.run_methods = methodsFittingRuns(dump, *etrecord);
    auto fits = [&](std::size_t r) {
        const auto& m = c.run_methods[r];
        return std::find(m.begin(), m.end(), c.method) != m.end();
    };
    if (options.run) {
        const std::size_t r = *options.run;
        if (multi && r < dump.runs.size() && !fits(r))
            c.warnings.push_back("run " + std::to_string(r) + " does not look like a run of method '" +
                                 c.method + "'" +
                                 (c.run_methods[r].empty() ? std::string(": no method fits its events")
                                                           : " but of " + quotedNames(c.run_methods[r])) +
                                 "; debug handles are numbered per method, so rows may pair unrelated ops");
        return r;
    }
    if (multi) {
        // The method's first execution (executionsOf: the runs that fit it).
        const auto executions = executionsOf(dump, c.method, c.run_methods);
        if (!executions.empty()) {
            const std::size_t r = executions.front();
            if (c.run_methods[r].size() > 1)
                c.warnings.push_back("run " + std::to_string(r) + " fits methods " +
                                     quotedNames(c.run_methods[r]) +
                                     " equally (same instructions and output sizes): it is compared as '" +
                                     c.method + "'; pick another run with --run if it is not");
            return r;
        }
        c.warnings.push_back("no run of the ETDump fits method '" + c.method +
                             "' (its instructions and output sizes): comparing the first run with "
                             "debug events; pick the run with --run");
    }
    // A dump of timings only, the values saved apart (saved_outputs.h): its first
    // run is the first execution, as the saved outputs count them.
    if (options.saved_outputs && !anyDebugEvents(dump)) {
        const auto executions = executionsOf(dump, c.method, c.run_methods, true);
        if (!executions.empty())
            return executions.front();
    }
    return defaultRun(dump);
}

} // namespace gapscope
