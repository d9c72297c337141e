#pragma once

#include "core/common/result.h"
#include "core/etdump/etdump_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gapscope::test {

std::string fixturePath(const std::string& relative);
std::vector<std::uint8_t> readBytes(const std::string& path);

// Loads shared/fixtures/etdump/<name>.etdp with its .debug.bin; fails the test on error.
EtDump loadFixture(const std::string& name, bool withDebugBuffer = true);

// Parses bytes held in memory, with an optional in-memory debug buffer.
Result<EtDump> parseBytes(const std::vector<std::uint8_t>& etdump,
                          const std::vector<std::uint8_t>* debugBuffer = nullptr);

bool hasWarning(const EtDump& dump, WarningCode code);

} // namespace gapscope::test
