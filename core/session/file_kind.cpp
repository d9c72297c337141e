#include "core/session/file_kind.h"

#include "core/backends/backend_run.h"
#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_file.h"
#include "core/common/mapped_file.h"
#include "core/common/zip_archive.h"
#include "core/session/session_document.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>

namespace gapscope {

namespace {

bool startsWith(ByteSpan b, const char* magic, std::size_t n) {
    return b.size >= n && std::memcmp(b.data, magic, n) == 0;
}

// A FlatBuffer's file identifier sits after its root offset, which points
// inside the file. ExecuTorch versions its program schema in the identifier's
// digits (ET12 today), so any two digits are accepted.
bool hasIdentifier(ByteSpan b, const char* letters) {
    if (b.size < 16)
        return false;
    std::uint32_t root = 0;
    std::memcpy(&root, b.data, 4);
    return root >= 8 && root < b.size && b.data[4] == letters[0] && b.data[5] == letters[1] &&
           std::isdigit(b.data[6]) && std::isdigit(b.data[7]);
}

// ZIP archives: an ETRecord says so with its ETRECORD_V0 entry; torch.save and
// torch.export.save write a pickle (`<name>/data.pkl`). A ZIP that says neither
// is left to the ETRecord reader, which names what it lacks.
FileKind zipKind(ByteSpan b) {
    constexpr std::size_t kNames = 4096; // an ETRecord has tens of entries
    const auto names = ZipArchive::entryNames(b, kNames);
    const auto has = [&](auto&& pred) { return std::any_of(names.begin(), names.end(), pred); };
    if (has([](const std::string& n) { return n == "ETRECORD_V0"; }))
        return FileKind::EtRecord;
    if (has([](const std::string& n) {
            return n == "data.pkl" || (n.size() > 9 && n.compare(n.size() - 9, 9, "/data.pkl") == 0);
        }))
        return FileKind::TorchArchive;
    return FileKind::EtRecord;
}

// Printable text (ASCII or well-formed UTF-8, with tabs and line ends) over the
// first 4 KiB. A debug buffer of float tensors fails this in its first bytes;
// JSON, CSV, logs and scripts pass.
bool looksLikeText(ByteSpan b) {
    const std::size_t n = std::min<std::size_t>(b.size, 4096);
    if (n == 0)
        return false;
    for (std::size_t i = 0; i < n;) {
        const std::uint8_t c = b.data[i];
        if (c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0x7f)) {
            ++i;
            continue;
        }
        const std::size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || c == 0xc0 || c == 0xc1 || c > 0xf4)
            return false;
        if (i + len > n) // a sequence the 4 KiB window cuts: text if the file goes on
            return i + len <= b.size;
        for (std::size_t k = 1; k < len; ++k)
            if ((b.data[i + k] & 0xc0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

} // namespace

const char* fileKindName(FileKind kind) {
    switch (kind) {
    case FileKind::EtDump: return "ETDump";
    case FileKind::EtRecord: return "ETRecord";
    case FileKind::Capture: return "AOT capture";
    case FileKind::BackendRun: return "TOSA run";
    case FileKind::Program: return "ExecuTorch program";
    case FileKind::TorchArchive: return "torch.save archive";
    case FileKind::SavedSession: return "saved session";
    case FileKind::Text: return "text";
    case FileKind::Other: return "other file";
    case FileKind::Raw: return "raw data";
    }
    return "raw data";
}

bool recordsARun(FileKind kind) {
    return kind == FileKind::EtDump || kind == FileKind::BackendRun;
}

FileKind detectFileKind(ByteSpan b) {
    if (b.size >= 12 && std::memcmp(b.data + 8, "ED00", 4) == 0)
        return FileKind::EtDump;
    if (b.size >= 8 && std::memcmp(b.data + 4, "ED00", 4) == 0)
        return FileKind::EtDump;
    if (hasIdentifier(b, "ET") || hasIdentifier(b, "BP"))
        return FileKind::Program;
    if (startsWith(b, "PK\x03\x04", 4))
        return zipKind(b);
    if (b.size >= 9) {
        std::uint64_t header = 0;
        std::memcpy(&header, b.data, 8);
        if (header > 1 && header <= SafetensorsFile::kMaxHeaderBytes && 8 + header <= b.size &&
            b.data[8] == '{') {
            // Searched in place: a copy of a 50,000-tensor header was 13 MB to
            // allocate, fault in and copy before the opening read anything.
            const std::string_view text(reinterpret_cast<const char*>(b.data) + 8,
                                        static_cast<std::size_t>(header));
            if (text.find(AotCapture::kMetadataKey) != std::string_view::npos)
                return FileKind::Capture;
            return isBackendRunHeader(text) ? FileKind::BackendRun : FileKind::Other;
        }
    }
    if (startsWith(b, "\x89PNG", 4) || startsWith(b, "%PDF", 4) ||
        startsWith(b,
                   "\x7f"
                   "ELF",
                   4) ||
        startsWith(b, "\x1f\x8b", 2))
        return FileKind::Other;
    if (looksLikeText(b)) {
        // Claimed by its key, so that a broken one is reported as a session file,
        // and one too large to read too, by the key in its first MiB (issue 55,
        // class 13: one over 1 MiB was taken for an input).
        const std::string_view head(reinterpret_cast<const char*>(b.data),
                                    std::min<std::size_t>(b.size, kMaxSessionDocument));
        return head.find(std::string("\"") + kSessionDocumentKey + "\"") != std::string_view::npos
                   ? FileKind::SavedSession
                   : FileKind::Text;
    }
    return FileKind::Raw;
}

std::optional<FileKind> fileKindAt(const std::string& path) {
    const auto mapped = MappedFile::open(path);
    if (!mapped)
        return std::nullopt;
    return detectFileKind(mapped.value()->bytes());
}

} // namespace gapscope
