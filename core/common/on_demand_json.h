#pragma once

#include "core/common/diagnostics.h"
#include "core/common/json_fault.h"

#include <cstdint>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>

namespace gapscope {

// The capture reader's JSON texts (the safetensors header, the capture
// document) are read with simdjson's On-Demand API: one pass over the text (in
// place where the bytes after it can serve as simdjson's padding, else over a
// padded copy), values read straight into Gapscope's types, no DOM. These are the
// pieces both readers share; docs/performance.md says why this library.
//
// On-Demand checks only what is read, so the readers read every value: what
// they do not use they pass to `validateSkipped`, and a document with a
// malformed value anywhere, or anything after its end, is refused.
class OnDemandJson {
public:
    // `readable`: the bytes that may be read from text.data() on (the text and
    // what follows it in the same buffer). With SIMDJSON_PADDING of them past
    // the text, it is read in place: copying a 50,000-tensor safetensors
    // header (13 MB) was a fifth of reading it. Else, and by default, a copy.
    explicit OnDemandJson(std::string_view text, std::size_t readable = 0);
    OnDemandJson(const OnDemandJson&) = delete;
    OnDemandJson& operator=(const OnDemandJson&) = delete;

    // The root value; throws simdjson_error when the first pass found the text
    // is not JSON (an unclosed string, bad UTF-8, …).
    simdjson::ondemand::document& document();
    // The byte offset in the text where the parser stands, when it can tell;
    // `thrown` is the error that stopped the reading, if one did.
    std::optional<std::size_t> offset(simdjson::error_code thrown = simdjson::SUCCESS);
    // Throws unless the root value was the whole text.
    void requireEnd();

private:
    simdjson::padded_string m_copy; // empty when the text is read in place
    std::string_view m_text;
    simdjson::ondemand::parser m_parser;
    simdjson::ondemand::document m_document;
    simdjson::error_code m_error = simdjson::SUCCESS; // of the first pass
};

// The integer a number holds when it fits a signed 64-bit integer exactly
// (2^64 − 1 is not −1); nothing for anything else, a float included.
std::optional<std::int64_t> onDemandInt64(simdjson::ondemand::value value);
// The same for an unsigned 64-bit integer.
std::optional<std::uint64_t> onDemandUint64(simdjson::ondemand::value value);
// The two above by the number's type first, then its value (three parses): what
// they fall back to where simdjson's one-parse reading fails. Exposed for the test
// that pins the two readings to each other.
std::optional<std::int64_t> typeFirstInt64(simdjson::ondemand::value value);
std::optional<std::uint64_t> typeFirstUint64(simdjson::ondemand::value value);

// Reads a value Gapscope does not use, to the bottom, so that it is checked
// (strings decoded, numbers parsed). Refuses nesting past kMaxJsonDepth.
void validateSkipped(simdjson::ondemand::value value, std::size_t depth = 0);

// "not valid JSON: <simdjson's words>"
std::string onDemandMessage(const simdjson::simdjson_error& error);

} // namespace gapscope
