#include "app/cli/repeated_warnings.h"

#include <algorithm>
#include <vector>

namespace gapscope::cli {

bool RepeatedWarnings::firstTime(const std::string& warning, std::size_t run) {
    std::string kind;
    kind.reserve(warning.size());
    for (const char c : warning) {
        const bool digit = c >= '0' && c <= '9';
        if (!digit || kind.empty() || kind.back() != '#')
            kind += digit ? '#' : c;
    }
    auto [it, first] = m_kinds.emplace(std::move(kind), Kind{});
    if (first) {
        it->second.first_run = run;
        it->second.order = m_kinds.size();
    } else {
        ++it->second.repeats;
    }
    return first;
}

void RepeatedWarnings::sayRepeats(std::ostream& out) const {
    std::vector<const Kind*> said;
    for (const auto& [text, kind] : m_kinds)
        if (kind.repeats)
            said.push_back(&kind);
    std::sort(said.begin(), said.end(), [](const Kind* a, const Kind* b) { return a->order < b->order; });
    for (const auto* kind : said)
        out << "gapscope-cli compare: the warning of run " << kind->first_run << " was said in "
            << kind->repeats << " more run" << (kind->repeats == 1 ? "" : "s")
            << " too (the same words, other numbers); the JSON report holds each run's\n";
}

} // namespace gapscope::cli
