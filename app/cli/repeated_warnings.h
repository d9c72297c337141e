#pragma once

#include <cstddef>
#include <map>
#include <ostream>
#include <string>

namespace gapscope::cli {

// Warnings of --all-runs said once per kind, not once per run: the same words
// with other numbers (an execution, a step) are one kind. A 20,000-execution
// loop wrote 10 MB of stderr, two lines a run (issue 55, class 8). The first of
// each kind is said as it comes, then how many more runs said it.
class RepeatedWarnings {
public:
    // True the first time a warning of this kind is seen (say it now).
    bool firstTime(const std::string& warning, std::size_t run);
    // One line per kind said more than once: how many more runs said it.
    void sayRepeats(std::ostream& out) const;

private:
    struct Kind {
        std::size_t first_run = 0, repeats = 0, order = 0;
    };
    std::map<std::string, Kind> m_kinds;
};

} // namespace gapscope::cli
