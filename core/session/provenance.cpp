#include "core/session/provenance.h"

#include "core/common/sha256.h"
#include "core/session/session.h"

namespace gapscope {

CaptureProvenance checkCaptureProvenance(const Session& s, const std::atomic<bool>* cancelled) {
    CaptureProvenance p;
    if (!s.etrecord_file || !s.capture || !s.capture->etrecord_sha256)
        return p;
    // Hashed once per workspace: another run or capture of the same files reuses it.
    std::string digest = s.workspace ? s.workspace->sha256(s.etrecord_file, cancelled)
                                     : sha256Hex(*s.etrecord_file, cancelled);
    if (digest.empty())
        return p; // cancelled
    p.etrecord_sha256 = std::move(digest);
    if (*p.etrecord_sha256 != *s.capture->etrecord_sha256)
        p.warning = "the capture was made from another ETRecord (SHA-256 " +
                    s.capture->etrecord_sha256->substr(0, 12) + "…, this one " +
                    p.etrecord_sha256->substr(0, 12) +
                    "…): its debug handles may be another program's. Capture this ETRecord";
    return p;
}

} // namespace gapscope
