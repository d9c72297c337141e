#include "core/session/debug_buffer_choice.h"

#include <algorithm>
#include <filesystem>
#include <functional>

namespace gapscope {

const std::vector<std::string>& executorchDebugBufferNames() {
    // debug_buffer.bin: the devtools tutorial and example runner's default;
    // debug_output.bin: ExecuTorch's Inspector docs and the QNN runner.
    static const std::vector<std::string> names{"debug_buffer.bin", "debug_output.bin"};
    return names;
}

namespace {

std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

} // namespace

DebugBufferChoice chooseDebugBuffer(const std::string& etdumpPath,
                                    const std::vector<std::shared_ptr<const MappedFile>>& raw,
                                    const std::vector<std::string>& named) {
    DebugBufferChoice choice;
    std::vector<std::shared_ptr<const MappedFile>> candidates;
    for (const auto& r : raw)
        if (r->size() > 0)
            candidates.push_back(r);
    // The one candidate a rule picks out, if exactly one is.
    const auto unique = [&](const std::function<bool(const MappedFile&)>& rule) {
        std::shared_ptr<const MappedFile> found;
        for (const auto& c : candidates)
            if (rule(*c)) {
                if (found)
                    return std::shared_ptr<const MappedFile>();
                found = c;
            }
        return found;
    };
    const std::string stem = std::filesystem::path(etdumpPath).stem().string() + ".";
    const auto& executorchNames = executorchDebugBufferNames();
    const std::vector<std::function<bool(const MappedFile&)>> rules{
        [&](const MappedFile& f) { return std::find(named.begin(), named.end(), f.path()) != named.end(); },
        [&](const MappedFile& f) { return fileName(f.path()).rfind(stem, 0) == 0; },
        [&](const MappedFile& f) {
            return std::find(executorchNames.begin(), executorchNames.end(), fileName(f.path())) !=
                   executorchNames.end();
        },
        [](const MappedFile&) { return true; },
    };
    for (const auto& rule : rules)
        if ((choice.file = unique(rule)))
            return choice;
    for (const auto& c : candidates)
        choice.candidates.push_back(c->path());
    return choice;
}

} // namespace gapscope
