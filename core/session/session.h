#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/common/progress.h"
#include "core/common/result.h"
#include "core/compare/comparison.h"
#include "core/compare/findings.h"
#include "core/compare/metric_catalog.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/profile/op_latency.h"
#include "core/report/report_context.h"
#include "core/session/file_kind.h"
#include "core/session/provenance.h"
#include "core/session/session_inputs.h"
#include "core/session/workspace.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// The method and path of every capture offered, in file order.
struct CapturesOffered {
    std::vector<std::string> methods, paths;
};

// A loaded session: the inputs, what was missing or could not be read, and (when
// an ETDump and a capture are there) the comparison. A value: the parsed inputs
// are shared and never change once read, so a copy is a safe, independent
// snapshot that keeps alive everything its comparison points into. The app's
// loader measures its own copy and publishes snapshots; views hold one each.
struct Session {
    std::shared_ptr<const MappedFile> etdump_file, debug_buffer_file, etrecord_file, capture_file;
    std::shared_ptr<const EtDump> dump;
    std::shared_ptr<const EtRecord> etrecord;
    std::shared_ptr<const AotCapture> capture;
    std::optional<Comparison> comparison;
    MetricThreshold threshold; // the first-divergence threshold used
    std::optional<FirstDivergence> first_divergence;
    std::vector<Introducer> introducers;
    // Each row's time from the same ETDump's timing table (op_latency.h), once
    // complete; null without profiling events for the compared run.
    std::shared_ptr<const ComparisonLatency> latency;
    // The ETDump's timing table as ExecuTorch's Inspector gives it (every event,
    // p10/p50/p90): the Profile tab. Null without timing.
    std::shared_ptr<const ProfileTable> profile;
    // Every capture offered (SessionFiles), shared: a decode loop offers thousands,
    // and --all-runs opens a session per run (issue 55).
    std::shared_ptr<const CapturesOffered> captures_offered;
    const std::vector<std::string>& capture_methods() const; // in file order
    const std::vector<std::string>& capture_paths() const;
    std::optional<std::string> etrecord_sha256; // hashed by the provenance check, reused by reports
    std::vector<InputRole> missing;             // in the order found; inputRoleLabel says them
    // The debug buffer is missing because several files could be it: their
    // paths, for the user to pick one (SessionOptions::debug_buffer).
    std::vector<std::string> debug_buffer_candidates;
    std::vector<Error> errors; // files that could not be read, with the reader's message
    // How many of `errors`, first, are files beside the session named like an
    // input that are none (SessionFiles::unrecognized): the app's banner shows
    // them; the CLI and the headless report warn and go on (whySessionUnusable).
    std::size_t unrecognized_errors = 0;
    // Every stage done: metrics, coverage and findings are final (see StagedSession).
    bool complete = false;
    // No workspace here (issue 57): the snapshot holds what was read, never the
    // mutable cache it was read through. Whoever opens sessions holds that (the
    // app's SessionLoader, the CLI's compare) and passes it in SessionOptions.
};

struct SessionOptions {
    MetricThreshold threshold = kDefaultThreshold;
    ComparisonOptions comparison;
    // Of several captures offered, the one at this path (default: see sortSessionFiles).
    std::string capture;
    // The file at this path is the debug buffer, whatever its content says
    // (the user picked it; default: chooseDebugBuffer's rules).
    std::string debug_buffer;
    // Reading progress (ETDump events read / total); returning false cancels the
    // load, which then reports a "cancelled" error.
    ProgressFn progress;
    // The parsed inputs to take from (and add to) instead of parsing the files
    // again: another run, method, capture or debug buffer of the same files. The
    // opener holds it; the sessions opened through it do not (issue 57). Every
    // stage of one opening (sort, open, complete, the provenance digest, the
    // steps) uses the same one.
    std::shared_ptr<Workspace> workspace;
    // Which of the workspace's file sets is compared (openFileSet).
    FileSetId file_set = 0;
};

// The files of a session by role; any may be null.
struct SessionFiles {
    std::shared_ptr<const MappedFile> etdump, debug_buffer, etrecord, capture;
    // The method's outputs as the user saved them (saved_outputs.h): a safetensors
    // whose tensors are named outputs/<index> or outputs/<execution>/<index>.
    std::shared_ptr<const MappedFile> saved_outputs;
    std::vector<std::shared_ptr<const MappedFile>> captures; // every capture offered
    // Each of `captures` as read to choose among them (null when unreadable).
    std::vector<std::shared_ptr<const AotCapture>> parsed_captures;
    // `capture` was asked for by path (not chosen by the rules).
    bool capture_asked = false;
    // Several files could be the debug buffer and none was chosen (chooseDebugBuffer).
    std::vector<std::string> debug_buffer_candidates;
    // Why `capture` was chosen among several (empty when there was one).
    std::string capture_choice;
    // `capture` as sortSessionFiles read it (empty when it could not be read,
    // or the files were sorted by hand), so opening does not read it again.
    std::shared_ptr<const AotCapture> parsed_capture;
    // Files named like an input (.etdp, .safetensors) that are not one, with
    // what their reader found wrong; they become Session::errors.
    std::vector<Error> unrecognized;
    // Captures offered that cannot serve (issue 55, class 2): one the capture
    // reader refuses (a `step` of -1 or 1.5, with its located field), other than
    // the one chosen (whose own error opening reports), and two captures of one
    // method that say the same step. Never dropped without a word: a step
    // capture left out makes its execution compared with another step's. They
    // become Session::errors, or warnings when the capture compared was asked for.
    std::vector<Error> capture_errors;
    // namesItsOwnHandles of `etdump`, when sortSessionFiles parsed it.
    std::optional<bool> etdump_names_its_handles;
    // The method and path of every capture offered, in file order (a multi-method
    // program needs one capture per method; `capture` is the one compared): made
    // once, shared by every session opened over these files. Null when the files
    // were sorted by hand.
    std::shared_ptr<const CapturesOffered> offered;
    // (method, step) → the index in `captures` of the first capture saying that
    // step: the compared run's capture, found without a scan of thousands.
    std::map<std::pair<std::string, std::uint64_t>, std::size_t> step_captures;
};

// A dump whose delegate events all carry their handle in the name (QNN's first
// design, `<name>__debugID_<N>`) resolves without an ETRecord, so none is missing.
bool namesItsOwnHandles(const EtDump& dump);

// The files a session reads: from now on no output of this process may replace
// them (MappedFile::protectFromOutputs). sortSessionFiles and openSessionFiles
// call it.
void protectInputs(const SessionFiles& files);

// The session's input files that changed on disk since they were opened
// (MappedFile::changedOnDisk): its numbers are then not to be trusted.
std::vector<std::string> changedInputs(const Session& session);

// Why no report of `session` should be written, in the words the CLI exits 1
// with and the app's headless --report says before it exits 1 (issue 55, class
// 5: one error path): its first error (an ETRecord refused, a capture that
// cannot serve), several files that could be the debug buffer and none chosen,
// nothing compared, or an input changed on disk while it was read. Nothing when
// it can be reported.
std::optional<std::string> whySessionUnusable(const Session& session);

// Sorts files by content: the debug buffer is the file at `preferredDebugBuffer`
// if given, else chooseDebugBuffer's among the files no reader recognises; of
// several captures, the one at `preferredCapture` if given, else one of
// `method` (default: forward, else any) wins, and then one of an ETRecord graph
// (ExecuTorch's reference) over another reference (a float model).
// With a workspace, captures are parsed through it (once for every sort), and
// the ETDump is read into it on another core meanwhile (reporting to
// `etdumpProgress`), for openSessionFiles to take. Given the comparison the
// next stage plans (`plan`) and where to put them (`events`), that core then
// reads the ETRecord and builds the plan's Inspector events
// (buildEventsBeforeCapture): the stage's second product, a value the caller
// hands to openSessionFiles (issue 57: no slot in the workspace).
SessionFiles sortSessionFiles(const SessionInputs& inputs, const std::string& method = {},
                              const std::string& preferredCapture = {},
                              const std::string& preferredDebugBuffer = {}, Workspace* workspace = nullptr,
                              const ProgressFn& etdumpProgress = {}, const ComparisonOptions* plan = nullptr,
                              std::optional<EventsBuilt>* events = nullptr);

// A session loaded in stages, so a UI can show the table before the numbers:
// openSessionFiles reads the files and plans the comparison (rows, shapes, dtypes,
// coverage); each plan in `pending` is measured with measureRow, on any thread,
// and applied with applyMeasurement on the thread that owns the session;
// completeSession then adds the program outputs (compareProgramOutputs, also
// thread-safe), the final coverage and the findings.
struct StagedSession {
    std::unique_ptr<Session> session;
    std::vector<RowPlan> pending;
};
// `events`: what the sort built for the plan (sortSessionFiles), taken when of its run and maps.
StagedSession openSessionFiles(const SessionFiles& files, const SessionOptions& options = {},
                               std::optional<EventsBuilt> events = std::nullopt);
StagedSession openSession(const SessionInputs& inputs, const SessionOptions& options = {});
// The file set `options.file_set` of `options.workspace`, opened: what the app's
// loader opens, one session of several side by side. A workspace that does not
// hold that set gives a session with that error and nothing compared; a set with
// a file that could not be read gives its files read and nothing compared (never
// another capture in the unreadable one's place).
StagedSession openFileSet(const SessionOptions& options);
void completeSession(Session& session, std::vector<OutputComparison> outputs,
                     const SessionOptions& options = {}, const CaptureProvenance& provenance = {});

// Reads the files it is given and compares (every stage at once). Never fails as a whole: errors and
// missing parts are reported in the Session so a UI can show them and stay usable.
std::unique_ptr<Session> loadSessionFiles(const SessionFiles& files, const SessionOptions& options = {},
                                          std::optional<EventsBuilt> events = std::nullopt);
std::unique_ptr<Session> loadSession(const SessionInputs& inputs, const SessionOptions& options = {});

// The session judged against another threshold: a new snapshot whose first
// divergence is found again (the rows and other findings do not depend on it).
Session withThreshold(const Session& session, const MetricThreshold& threshold);

// Everything a report needs beyond the rows: threshold, findings, and each
// input's path, size and SHA-256 (hashed from the bytes already mapped).
ReportContext reportContextFor(const Session& session);
// The same with the inputs already described (hashInputs), so that hashing,
// which reads every byte of every input, can run beside the comparison.
ReportContext reportContextFor(const Session& session, std::vector<InputProvenance> inputs);
// Each input's role, path, size and SHA-256, in report order; the ETRecord's
// digest is taken from `etrecordSha256` when already known. Thread-safe: the
// CLI starts it on a thread of its own as soon as the files are mapped.
std::vector<InputProvenance> hashInputs(const SessionFiles& files,
                                        const std::optional<std::string>& etrecordSha256 = {});
// hashInputs's list with the ETRecord in its place, taking the digest the
// provenance check computed (it hashes the ETRecord anyway; hashed here only when
// it did not): the CLI hashes the other inputs beside the comparison, before
// that digest exists, and so does not hash a large ETRecord twice.
std::vector<InputProvenance> withEtRecordDigest(std::vector<InputProvenance> others, const Session& session);

// Expands folders (one level) and maps the files; unreadable paths become errors.
// A path given twice (a folder and a file in it) is mapped once. An ETDump given
// as a file brings its debug buffer along when it lies beside it under one of
// ExecuTorch's names (run.etdp → run.debug.bin, debug_buffer.bin, debug_output.bin).
// Paths given as files are SessionInputs::named.
SessionInputs sessionInputsFromPaths(const std::vector<std::string>& paths, std::vector<Error>& errors);

} // namespace gapscope
