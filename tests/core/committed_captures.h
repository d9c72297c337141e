#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gapscope::test {

// Every capture committed with the project, written by the exporter with
// Python's safetensors: the int8 XNNPACK demo, the QNN demo and each session
// under tests/data (for the core tests, which define the three folders).
inline std::vector<std::string> committedCaptures() {
    std::vector<std::string> out = {std::string(GAPSCOPE_DEMO_DIR) + "/capture.gscap.safetensors",
                                    std::string(GAPSCOPE_QNN_DEMO_DIR) + "/capture.gscap.safetensors"};
    for (const auto& dir : std::filesystem::directory_iterator(GAPSCOPE_TEST_DATA_DIR))
        for (const auto& f : std::filesystem::directory_iterator(dir.path()))
            if (f.path().extension() == ".safetensors")
                out.push_back(f.path().string());
    return out;
}

} // namespace gapscope::test
