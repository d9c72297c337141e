#include "core/session/companion_files.h"

#include "core/session/session.h"

#include <algorithm>
#include <filesystem>

namespace gapscope {

std::vector<std::string> companionFilesOf(const std::string& etdumpPath) {
    namespace fs = std::filesystem;
    std::vector<std::string> found;
    std::error_code ec;
    const fs::path given(etdumpPath);
    const fs::path folder = given.has_parent_path() ? given.parent_path() : fs::path(".");
    fs::directory_iterator it(folder, ec), end;
    std::size_t scanned = 0;
    for (; !ec && it != end && scanned < kMaxCompanionScan; it.increment(ec), ++scanned) {
        // is_regular_file follows symlinks; MappedFile::open refuses anything else
        // again (FIFOs, devices) without blocking.
        if (!it->is_regular_file(ec) || fs::equivalent(it->path(), given, ec))
            continue;
        // Unreadable neighbours (no kind) are not the user's concern here.
        const auto kind = fileKindAt(it->path().string());
        if (kind == FileKind::EtRecord || kind == FileKind::Capture)
            found.push_back(it->path().string());
    }
    std::sort(found.begin(), found.end());
    return found;
}

} // namespace gapscope
