#include "core/session/provenance.h"

#include "core/common/sha256.h"
#include "core/session/session.h"

namespace gapscope {

namespace {

std::string anotherEtRecord(const std::string& what, const std::string& captured, const std::string& open) {
    return "the capture was made from another ETRecord (" + what + " " + captured.substr(0, 12) +
           "…, this one " + open.substr(0, 12) +
           "…): its debug handles may be another program's. Capture this ETRecord";
}

} // namespace

CaptureProvenance checkCaptureProvenance(const Session& s, const std::atomic<bool>* cancelled) {
    CaptureProvenance p;
    if (!s.etrecord_file || !s.capture)
        return p;
    // A capture written since the exporter records the ETRecord's table of
    // contents is checked against it: the CRC-32 of every entry, read from the
    // ZIP's central directory when the ETRecord was opened, instead of hashing
    // the whole file (0.12 s for ViT-S/16's 180 MB, as long again as measuring
    // it). An older capture has only the file's SHA-256.
    if (s.capture->etrecord_entries_sha256 && s.etrecord && !s.etrecord->entries_sha256.empty()) {
        if (*s.capture->etrecord_entries_sha256 != s.etrecord->entries_sha256)
            p.warning = anotherEtRecord("entries SHA-256", *s.capture->etrecord_entries_sha256,
                                        s.etrecord->entries_sha256);
        return p;
    }
    if (!s.capture->etrecord_sha256)
        return p;
    // Hashed once per workspace: another run or capture of the same files reuses it.
    std::string digest = s.workspace ? s.workspace->sha256(s.etrecord_file, cancelled)
                                     : sha256Hex(*s.etrecord_file, cancelled);
    if (digest.empty())
        return p; // cancelled
    p.etrecord_sha256 = std::move(digest);
    if (*p.etrecord_sha256 != *s.capture->etrecord_sha256)
        p.warning = anotherEtRecord("SHA-256", *s.capture->etrecord_sha256, *p.etrecord_sha256);
    return p;
}

} // namespace gapscope
