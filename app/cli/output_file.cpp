#include "app/cli/output_file.h"

#include "core/common/atomic_file.h"
#include "core/common/file_safety.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string_view>

namespace gapscope::cli {

std::optional<std::string> writeOutput(const std::string& path, const std::string& text) {
    if (path.empty())
        return std::nullopt;
    if (path == "-") {
        std::cout << text;
        std::cout.flush();
        if (!std::cout)
            return std::string("standard output: cannot write");
        return std::nullopt;
    }
    if (auto err = writeFileAtomically(path, std::string_view(text)))
        return err->describe();
    return std::nullopt;
}

StreamedOutput::StreamedOutput(const std::string& path) : path_(path) {
    if (!path_.empty() && path_ != "-")
        file_ = std::make_unique<AtomicFileWriter>(path_);
}

void StreamedOutput::write(std::string_view text) {
    if (file_)
        file_->write(text);
    else if (!path_.empty())
        std::cout << text;
}

std::optional<std::string> StreamedOutput::finish() {
    if (path_.empty())
        return std::nullopt;
    if (!file_) {
        std::cout.flush();
        if (!std::cout)
            return std::string("standard output: cannot write");
        return std::nullopt;
    }
    if (auto err = file_->commit())
        return err->describe();
    return std::nullopt;
}

std::optional<std::string> checkOutputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                                        const std::vector<std::string>& folders) {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, std::string>> given;
    for (const auto& o : outputs)
        if (!o.second.empty())
            given.push_back(o);
    for (const auto& [option, path] : given)
        if (path == "-" && std::find(folders.begin(), folders.end(), option) != folders.end())
            return option + " writes a folder: it cannot be standard output (-)";
    for (std::size_t i = 0; i < given.size(); ++i)
        for (std::size_t j = i + 1; j < given.size(); ++j) {
            const auto& [a, pa] = given[i];
            const auto& [b, pb] = given[j];
            if (pa == "-" || pb == "-") {
                if (pa == pb)
                    return a + " and " + b + " both write to standard output (-): give one a file";
                continue;
            }
            std::error_code ec;
            const bool same =
                fs::absolute(pa, ec).lexically_normal() == fs::absolute(pb, ec).lexically_normal() ||
                (fs::exists(pa, ec) && fs::exists(pb, ec) && fs::equivalent(pa, pb, ec));
            if (same)
                return a + " and " + b + " name the same file (" + pa +
                       "): the second would replace the first; give each its own";
        }
    return std::nullopt;
}

std::optional<std::string>
refuseOutputsOverInputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                        const std::vector<std::string>& folders) {
    for (const auto& [option, path] : outputs) {
        if (path.empty() || path == "-" || std::find(folders.begin(), folders.end(), option) != folders.end())
            continue;
        if (auto err = refuseUnsafeOutput(path))
            return err->describe();
    }
    return std::nullopt;
}

bool writesToStdout(const std::vector<std::pair<std::string, std::string>>& outputs) {
    return std::any_of(outputs.begin(), outputs.end(), [](const auto& o) { return o.second == "-"; });
}

} // namespace gapscope::cli
