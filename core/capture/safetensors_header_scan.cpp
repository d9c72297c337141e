#include "core/capture/safetensors_header_scan.h"

#include "core/common/json_scanner.h"

#include <limits>

namespace gapscope {

namespace {

// {"dtype": "...", "shape": [...], "data_offsets": [b, e]}, the keys in any
// order, each exactly once.
bool tensorEntry(JsonScanner& s, ScannedTensorEntry& t, std::string& key) {
    if (!s.take('{'))
        return false;
    bool dtype = false, shape = false, offsets = false;
    if (s.peek('}'))
        return false;
    do {
        if (!s.string(key) || !s.take(':'))
            return false;
        if (key == "dtype" && !dtype) {
            dtype = true;
            if (!s.string(t.dtype))
                return false;
        } else if (key == "shape" && !shape) {
            shape = true;
            if (!s.take('['))
                return false;
            if (!s.take(']')) {
                do {
                    std::uint64_t d = 0;
                    if (!s.unsignedInteger(d) ||
                        d > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                        return false;
                    t.shape.push_back(static_cast<std::int64_t>(d));
                } while (s.take(','));
                if (!s.take(']'))
                    return false;
            }
        } else if (key == "data_offsets" && !offsets) {
            offsets = true;
            if (!s.take('[') || !s.unsignedInteger(t.begin) || !s.take(',') || !s.unsignedInteger(t.end) ||
                !s.take(']'))
                return false;
        } else {
            return false; // another key, or one given twice
        }
    } while (s.take(','));
    return s.take('}') && dtype && shape && offsets;
}

bool metadataEntries(JsonScanner& s, std::vector<std::pair<std::string, std::string>>& out) {
    if (!s.take('{'))
        return false;
    if (s.take('}'))
        return true;
    do {
        std::pair<std::string, std::string> kv;
        if (!s.string(kv.first) || !s.take(':') || !s.string(kv.second))
            return false;
        out.push_back(std::move(kv));
    } while (s.take(','));
    return s.take('}');
}

} // namespace

std::optional<ScannedHeader> scanSafetensorsHeader(std::string_view text) {
    JsonScanner s(text);
    ScannedHeader out;
    bool metadata = false;
    if (!s.take('{'))
        return std::nullopt;
    if (!s.take('}')) {
        std::string key, inner;
        do {
            if (!s.string(key) || !s.take(':'))
                return std::nullopt;
            if (key == "__metadata__") {
                if (metadata || !metadataEntries(s, out.metadata))
                    return std::nullopt;
                metadata = true;
                continue;
            }
            ScannedTensorEntry t;
            t.name = key;
            if (!tensorEntry(s, t, inner))
                return std::nullopt;
            out.tensors.push_back(std::move(t));
        } while (s.take(','));
        if (!s.take('}'))
            return std::nullopt;
    }
    if (!s.atEnd())
        return std::nullopt;
    return out;
}

} // namespace gapscope
