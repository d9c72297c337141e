#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

struct BackendConventions;
struct EtRecord;
struct Session;

// A device's folder with an ETRecord and no AOT capture: the capture the
// exporter can make for it in one action (issue 60), with the inputs it finds
// beside the ETRecord (gapscope-capture for-session, python/README.md).
struct CaptureRequest {
    std::string etrecord; // the ETRecord's path
    std::string output;   // where the capture goes: capture.gscap.safetensors beside the ETRecord
    std::string method;   // empty: forward
    bool operator==(const CaptureRequest& o) const {
        return etrecord == o.etrecord && output == o.output && method == o.method;
    }
    bool operator!=(const CaptureRequest& o) const { return !(*this == o); }
};

// The request for an ETRecord at `etrecordPath` (its method, empty for forward).
CaptureRequest captureRequestFor(const std::string& etrecordPath, const std::string& method);
// For an open session: none when it has a capture or no ETRecord, or when the
// program delegates to a backend whose reference is made in the lowering script
// (QNN: while its intermediate debugger is alive; captureAdvice says how).
std::optional<CaptureRequest> captureRequest(const Session& session);
// The backend a program delegates to whose reference is made in its lowering
// script (its conventions name the function), or null.
const BackendConventions* scriptCaptureBackend(const EtRecord& record);

// The exporter's command words: $GAPSCOPE_CAPTURE split at spaces when set
// (e.g. "/opt/venv/bin/python -m gapscope_capture"), else gapscope-capture
// found on $PATH. Empty, with `why` said, when there is none.
std::vector<std::string> exporterCommand(std::string& why);
// `gapscope-capture for-session ETRECORD -o OUT [--method M]`'s arguments (after the command).
std::vector<std::string> forSessionArguments(const CaptureRequest& request);
// The one JSON line `gapscope-capture serve` reads.
std::string serveRequestLine(const CaptureRequest& request);

// One line the worker (`gapscope-capture serve`) writes.
struct WorkerEvent {
    enum class Kind { Ready, Progress, Done, Error, Unknown };
    Kind kind = Kind::Unknown;
    std::string stage;   // Progress: what it is doing
    double fraction = 0; // Progress: 0 … 1
    std::string message; // Error: why; Unknown: the line itself
    std::string output;  // Done: the capture written
    long records = 0;    // Done: how many records it holds
};
// A line that is not one of the worker's JSON events is Unknown (a stray print
// of a library), never an error: the worker's exit says whether it failed.
WorkerEvent parseWorkerEvent(std::string_view line);

} // namespace gapscope
