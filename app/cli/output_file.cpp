#include "app/cli/output_file.h"

#include "core/common/atomic_file.h"

#include <string_view>

namespace gapscope::cli {

std::optional<std::string> writeOutput(const std::string& path, const std::string& text) {
    if (path.empty())
        return std::nullopt;
    if (auto err = writeFileAtomically(path, std::string_view(text)))
        return err->describe();
    return std::nullopt;
}

} // namespace gapscope::cli
