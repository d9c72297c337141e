#pragma once

#include "core/common/result.h"
#include "core/etdump/etdump_model.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gapscope::fuzz {

// Splits a fuzzer's input into parts at a separator that seeds and
// dictionaries can hold ("\n--8<--\n"); missing parts are empty. Lets one
// input carry several files (an ETDump and its debug buffer, say).
std::vector<std::string> splitParts(const std::uint8_t* data, std::size_t size, std::size_t parts);

// A ZIP archive of stored entries, built in memory (CRC-32 from zlib): the
// ETRecord target mutates the entries' JSON, not the container, which libzip
// would reject before any JSON is read.
std::string storedZip(const std::vector<std::pair<std::string, std::string>>& entries);

// A safetensors file with one float32 tensor "t" of two elements and the
// given string as its gapscope.aot_capture metadata.
std::string captureWithDocument(const std::string& document);

// An ETDump and, after the separator, its debug buffer, parsed as the readers
// get them from disk (copied into aligned memory, as a mapping is).
Result<EtDump> parseEtdumpParts(const std::uint8_t* data, std::size_t size);

} // namespace gapscope::fuzz
