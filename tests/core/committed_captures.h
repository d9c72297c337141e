#pragma once

#include "core/common/mapped_file.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace gapscope::test {

// Every capture committed with the project, opened (the test fails if one
// cannot be): written by the exporter with Python's safetensors, the int8
// XNNPACK demo, the QNN demo and each session under tests/data (for the core
// tests, which define the three folders).
inline std::vector<std::shared_ptr<const MappedFile>> committedCaptures() {
    std::vector<std::string> paths = {std::string(GAPSCOPE_DEMO_DIR) + "/capture.gscap.safetensors",
                                      std::string(GAPSCOPE_QNN_DEMO_DIR) + "/capture.gscap.safetensors"};
    for (const auto& dir : std::filesystem::directory_iterator(GAPSCOPE_TEST_DATA_DIR))
        for (const auto& f : std::filesystem::directory_iterator(dir.path()))
            // Captures only: a session may hold other safetensors (an Arm run's tosa_run.safetensors).
            if (f.path().string().size() > 18 &&
                f.path().string().compare(f.path().string().size() - 18, 18, ".gscap.safetensors") == 0)
                paths.push_back(f.path().string());
    REQUIRE(paths.size() >= 8);
    std::vector<std::shared_ptr<const MappedFile>> files;
    for (const auto& path : paths) {
        INFO(path);
        auto file = MappedFile::open(path);
        REQUIRE(file);
        files.push_back(file.value());
    }
    return files;
}

} // namespace gapscope::test
