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
// The inverse: parts joined by the separator (trailing empty parts left off).
std::string joinParts(std::vector<std::string> parts);

// A ZIP archive of stored entries, built in memory (CRC-32 from zlib): the
// ETRecord target mutates the entries' JSON, not the container, which libzip
// would reject before any JSON is read.
std::string storedZip(const std::vector<std::pair<std::string, std::string>>& entries);

// A safetensors file's tensors without its metadata: the header's tensor
// entries (JSON members, comma-separated) and the data section.
struct CaptureTensors {
    std::string entries = R"("t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
    std::string data = std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8); // 1.0f, -2.0f
};
// The tensors of a real capture file (aborts if it cannot be read: the
// targets' fixed inputs are part of the checkout).
CaptureTensors tensorsOf(const std::string& capturePath);

// A safetensors file holding `tensors` (by default one float32 tensor "t" of
// two elements) and the given string as its gapscope.aot_capture metadata.
std::string captureWithDocument(const std::string& document, const CaptureTensors& tensors = {});
// The same with the document under another metadata key (a TOSA run's).
std::string safetensorsWithDocument(const std::string& key, const std::string& document,
                                    const CaptureTensors& tensors);

// An ETDump and, after the separator, its debug buffer, parsed as the readers
// get them from disk (copied into aligned memory, as a mapping is).
Result<EtDump> parseEtdumpParts(const std::uint8_t* data, std::size_t size);

} // namespace gapscope::fuzz
