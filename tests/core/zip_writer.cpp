#include "zip_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <zip.h>

namespace gapscope::test {

void writeZip(const std::string& path, const std::vector<std::pair<std::string, std::string>>& entries,
              bool deflate) {
    std::filesystem::remove(path);
    int err = 0;
    zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    REQUIRE(z);
    for (const auto& [name, data] : entries) {
        zip_source_t* src = zip_source_buffer(z, data.data(), data.size(), 0);
        REQUIRE(src);
        const zip_int64_t idx = zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE);
        REQUIRE(idx >= 0);
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 0);
    }
    REQUIRE(zip_close(z) == 0);
}

std::string tempPath(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / "gapscope-tests";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

} // namespace gapscope::test
