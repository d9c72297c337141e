#include "core/session/session.h"

#include "core/align/debug_handle_resolver.h"
#include "core/backends/backend_run.h"
#include "core/common/sha256.h"
#include "core/compare/delegate_granularity.h"
#include "core/compare/run_checks.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/runs/run_summary.h"
#include "core/session/file_kind.h"
#include "core/session/stage_runner.h"

#include <algorithm>
#include <filesystem>

namespace gapscope {

// One program names its events alike in every execution: the first run with
// delegate events decides (a decode loop opened step by step would otherwise
// scan every run of the loop at every step).
bool namesItsOwnHandles(const EtDump& dump) {
    for (const auto& run : dump.runs) {
        bool any = false;
        for (const auto& e : run.events)
            if (const auto* d = std::get_if<DebugEvent>(&e); d && d->delegate_debug_id_int != -1) {
                return false;
            } else if (d && d->delegate_debug_id_str && !d->delegate_debug_id_str->empty()) {
                if (!debugIdSuffix(*d->delegate_debug_id_str))
                    return false;
                any = true;
            }
        if (any)
            return true;
    }
    return false;
}

std::vector<std::string> changedInputs(const Session& session) {
    std::vector<std::string> changed;
    for (const auto& f :
         {session.etdump_file, session.debug_buffer_file, session.etrecord_file, session.capture_file})
        if (f && f->changedOnDisk())
            changed.push_back(f->path());
    return changed;
}

std::optional<std::string> whySessionUnusable(const Session& session) {
    // Files beside the session that are no input are warnings, unless nothing
    // could be compared without them (a corrupt run.etdp: "ETDump missing").
    if (session.errors.size() > session.unrecognized_errors)
        return session.errors[session.unrecognized_errors].describe();
    if (!session.comparison && !session.errors.empty())
        return session.errors.front().describe();
    if (!session.debug_buffer_file && !session.debug_buffer_candidates.empty()) {
        std::string list;
        for (const auto& c : session.debug_buffer_candidates)
            list += "\n  " + c;
        return "several files could be the debug buffer and none is named one: give it with --debug-buffer "
               "(gapscope-cli) or open it with the other files (the app):" +
               list;
    }
    if (!session.comparison) {
        std::string missing;
        for (const auto role : session.missing)
            missing += (missing.empty() ? "" : ", ") + std::string(inputRoleLabel(role));
        return "nothing to compare" + (missing.empty() ? std::string() : ": " + missing + " missing");
    }
    for (const auto& path : changedInputs(session))
        return path + ": changed on disk while it was read: the numbers are not to be trusted; run again";
    return std::nullopt;
}

const std::vector<std::string>& Session::capture_methods() const {
    static const std::vector<std::string> none;
    return captures_offered ? captures_offered->methods : none;
}

const std::vector<std::string>& Session::capture_paths() const {
    static const std::vector<std::string> none;
    return captures_offered ? captures_offered->paths : none;
}

void protectInputs(const SessionFiles& files) {
    for (const auto& f :
         {files.etdump, files.debug_buffer, files.etrecord, files.capture, files.saved_outputs})
        if (f)
            f->protectFromOutputs();
    for (const auto& f : files.captures)
        f->protectFromOutputs();
}

namespace {

// One workspace for the sort and the opening: the sort reads the ETDump into it
// while it reads the captures, and the opening takes it from there.
SessionOptions withWorkspace(const SessionOptions& given) {
    SessionOptions options = given;
    if (!options.workspace)
        options.workspace = std::make_shared<Workspace>();
    return options;
}

// The read stage, and the plan's events it builds on its second core.
SessionFiles sortFor(const SessionInputs& inputs, const SessionOptions& options,
                     std::optional<EventsBuilt>& events) {
    return sortSessionFiles(inputs, options.comparison.method, options.capture, options.debug_buffer,
                            options.workspace.get(), options.progress, &options.comparison, &events);
}

} // namespace

std::unique_ptr<Session> loadSession(const SessionInputs& inputs, const SessionOptions& given) {
    const SessionOptions options = withWorkspace(given);
    std::optional<EventsBuilt> events;
    const SessionFiles files = sortFor(inputs, options, events);
    return loadSessionFiles(files, options, std::move(events));
}

StagedSession openSession(const SessionInputs& inputs, const SessionOptions& given) {
    const SessionOptions options = withWorkspace(given);
    std::optional<EventsBuilt> events;
    const SessionFiles files = sortFor(inputs, options, events);
    return openSessionFiles(files, options, std::move(events));
}

StagedSession openFileSet(const SessionOptions& options) {
    const auto set = options.workspace ? options.workspace->fileSet(options.file_set) : nullptr;
    if (!set) {
        StagedSession none;
        none.session = std::make_unique<Session>();
        none.session->complete = true;
        Error e;
        e.code = ErrorCode::Io;
        e.message = "the workspace holds no file set " + std::to_string(options.file_set);
        none.session->errors.push_back(std::move(e));
        return none;
    }
    StagedSession staged = openSession(set->inputs, options);
    if (!set->unreadable.empty()) {
        // A file given that could not be read may be the capture (or dump) the user
        // meant: comparing another one in its place would be a silent wrong answer.
        // The files read stay browsable; nothing is compared.
        Session& s = *staged.session;
        std::vector<Error> errors = set->unreadable;
        if (s.comparison) {
            Error why;
            why.code = ErrorCode::Io;
            why.message = "nothing compared: " + std::to_string(set->unreadable.size()) +
                          (set->unreadable.size() == 1 ? " file" : " files") +
                          " given could not be read, and Gapscope never compares another file in its place; "
                          "make it readable, or leave it out";
            errors.push_back(std::move(why));
        }
        errors.insert(errors.end(), s.errors.begin(), s.errors.end());
        s.errors = std::move(errors);
        s.comparison.reset();
        s.first_divergence.reset();
        s.complete = true;
        staged.pending.clear();
    }
    return staged;
}

std::unique_ptr<Session> loadSessionFiles(const SessionFiles& files, const SessionOptions& given,
                                          std::optional<EventsBuilt> events) {
    const SessionOptions options = withWorkspace(given); // one for opening, completing and the digest
    auto staged = openSessionFiles(files, options, std::move(events));
    Session& s = *staged.session;
    if (s.complete)
        return std::move(staged.session);
    StageCallbacks stages;
    stages.cancelled =
        options.comparison.cancelled; // a cancelled load stops measuring too (and never completes)
    stages.measured = [&](std::vector<RowMeasurement> batch, std::size_t, std::size_t) {
        for (const auto& m : batch)
            applyMeasurement(*s.comparison, m);
    };
    stages.completed = [&](std::vector<OutputComparison> outputs, CaptureProvenance provenance) {
        completeSession(s, std::move(outputs), options, provenance);
    };
    runStages(s, staged.pending, stages, options.workspace.get());
    return std::move(staged.session);
}

namespace {

// ExecuTorch 1.5's ETDumpGen cannot log a float16 or bfloat16 tensor: its ETDump
// schema has no such ScalarType, and add_tensor_entry (etdump_flatcc.cpp)
// returns the error after etdump_Tensor_start, with that table and the
// DebugEvent around it left open in the flatcc builder, so every event written
// after it lands in the wrong table and the file is no valid FlatBuffer ("This
// ScalarType = 5 is not yet supported in ETDump" on the device's log). Neither
// Gapscope nor ExecuTorch's own reader can read anything of it safely (issue 54,
// measured on a model.half() program, portable and XNNPACK). When the ETDump
// fails verification and the reference holds half-precision tensors, say so.
void explainHalfPrecisionEtdump(Session& s) {
    const bool half =
        s.capture->file &&
        std::any_of(s.capture->file->tensors().begin(), s.capture->file->tensors().end(),
                    [](const auto& t) { return t.second.dtype == "F16" || t.second.dtype == "BF16"; });
    if (!half)
        return;
    for (auto& e : s.errors)
        if (s.etdump_file && e.where.file == s.etdump_file->path() && e.code == ErrorCode::Malformed)
            e.message +=
                ". The reference holds float16/bfloat16 tensors: ExecuTorch's ETDumpGen (1.5) cannot log "
                "those (its ETDump schema has no Half or BFloat16; add_tensor_entry returns with the "
                "Tensor and DebugEvent tables open) and writes a file no reader can trust after the first "
                "such tensor. Run with ETDump at profiling level only, or keep the logged outputs in float32 "
                "(docs/llm.md, \"Half precision\")";
}

} // namespace

StagedSession openSessionFiles(const SessionFiles& files, const SessionOptions& options,
                               std::optional<EventsBuilt> events) {
    protectInputs(files); // however the files were chosen
    StagedSession staged;
    staged.session = std::make_unique<Session>();
    auto& s = staged.session;
    s->errors = files.unrecognized;
    s->unrecognized_errors = files.unrecognized.size();
    if (!files.capture_asked)
        s->errors.insert(s->errors.end(), files.capture_errors.begin(), files.capture_errors.end());
    s->complete = true; // until a comparison is planned
    s->threshold = options.threshold;
    s->etdump_file = files.etdump;
    s->debug_buffer_file = files.debug_buffer;
    s->etrecord_file = files.etrecord;
    s->capture_file = files.capture;
    s->captures_offered = files.offered;

    // Parsed here, or taken from the workspace, where another comparison of the
    // same files (another run, method or capture) parsed them already.
    const auto own = options.workspace ? nullptr : std::make_shared<Workspace>();
    Workspace& workspace = options.workspace ? *options.workspace : *own;
    // A backend's own record of the run (a TOSA run) in the ETDump's place: read
    // once the ETRecord and the capture it is tied to are (below).
    const bool backendRun = s->etdump_file && detectFileKind(s->etdump_file->bytes()) == FileKind::BackendRun;
    if (s->etdump_file && !backendRun) {
        auto d = workspace.etdump(s->etdump_file, s->debug_buffer_file, options.progress);
        if (d)
            s->dump = d.value();
        else if (d.error().code == ErrorCode::Cancelled) {
            s->errors.push_back(d.error());
            return staged;
        } else
            s->errors.push_back(d.error());
    } else if (!s->etdump_file) {
        s->missing.push_back(InputRole::EtDump);
    }
    // A dump of timings only (no debug event: logged without a debug buffer, its
    // values saved apart or not wanted) has no tensor to read from one.
    if (s->etdump_file && !s->debug_buffer_file && !(s->dump && !anyDebugEvents(*s->dump))) {
        s->missing.push_back(InputRole::DebugBuffer);
        s->debug_buffer_candidates = files.debug_buffer_candidates;
    }
    if (s->etrecord_file) {
        auto r = workspace.etrecord(s->etrecord_file);
        if (r)
            s->etrecord = r.value();
        else
            s->errors.push_back(r.error());
    } else if (!s->dump || !(files.etdump_names_its_handles ? *files.etdump_names_its_handles
                                                            : namesItsOwnHandles(*s->dump))) {
        s->missing.push_back(InputRole::EtRecord);
    }
    // Captures of a sequence of steps (state carried from one to the next): the one of
    // the compared run's execution, unless one was asked for.
    std::string captureChoice = files.capture_choice;
    std::shared_ptr<const AotCapture> parsedCapture = files.parsed_capture;
    if (!files.capture_asked && parsedCapture && parsedCapture->step && s->dump) {
        const std::string method =
            options.comparison.method.empty() ? parsedCapture->method : options.comparison.method;
        const auto execution = executionIndex(*s->dump, s->etrecord.get(), method, options.comparison.run,
                                              files.saved_outputs != nullptr);
        const auto step = execution ? files.step_captures.find({parsedCapture->method, *execution})
                                    : files.step_captures.end();
        if (step != files.step_captures.end()) {
            s->capture_file = files.captures[step->second];
            parsedCapture = files.parsed_captures[step->second];
            captureChoice.clear(); // the step is the choice: no other capture is of this run
        }
    }
    if (s->capture_file && parsedCapture && parsedCapture->file &&
        parsedCapture->file->path() == s->capture_file->path()) {
        s->capture = parsedCapture; // read already, to choose among the captures
    } else if (s->capture_file) {
        auto c = workspace.capture(s->capture_file);
        if (c)
            s->capture = c.value();
        else
            s->errors.push_back(c.error());
    } else {
        s->missing.push_back(InputRole::Capture);
    }
    std::vector<std::string> backendNotes, backendWarnings;
    if (backendRun && s->etrecord && s->capture) {
        const std::string method =
            options.comparison.method.empty() ? s->capture->method : options.comparison.method;
        // The capture of the ETRecord's own graph among those offered names its
        // nodes, whichever reference is compared (a float model's).
        const AotCapture* naming = nullptr;
        for (const auto& c : files.parsed_captures)
            if (c && c->method == method && c->reference_graph.value_or("") == "exported_program")
                naming = c.get();
        auto run = openBackendRun(s->etdump_file, *s->etrecord, *s->capture, naming, method);
        if (run) {
            s->dump = run.value().dump;
            s->etrecord = run.value().etrecord;
            s->capture = run.value().capture;
            backendNotes = std::move(run.value().notes);
            backendWarnings = std::move(run.value().warnings);
        } else {
            s->errors.push_back(run.error());
        }
    }
    if (s->capture && !s->dump && !backendRun)
        explainHalfPrecisionEtdump(*s);

    // The device's outputs as the user saved them, read once for every step.
    ComparisonOptions comparing = options.comparison;
    if (files.saved_outputs && !comparing.saved_outputs) {
        auto saved = workspace.savedOutputs(files.saved_outputs);
        if (saved)
            comparing.saved_outputs = saved.value();
        else
            s->errors.push_back(saved.error());
    }
    if (s->dump && s->capture) {
        auto c = planComparison(*s->dump, s->etrecord.get(), *s->capture, comparing, std::move(events));
        if (c) {
            s->comparison = std::move(c.value().comparison);
            if (!captureChoice.empty())
                s->comparison->warnings.insert(
                    s->comparison->warnings.begin(),
                    "several captures of this method were given; comparing '" +
                        std::filesystem::path(s->capture_file->path()).filename().string() + "' (" +
                        captureChoice + "). Pick another with --capture or the app's Reference selector");
            // Captures beside the one asked for that cannot serve: said, not fatal.
            if (files.capture_asked)
                for (const auto& e : files.capture_errors)
                    s->comparison->warnings.push_back(e.describe());
            // What the ETRecord reader left out (a graph it could not read, no
            // debug_handle_map) changes what can be resolved and named: said.
            if (s->etrecord)
                for (const auto& w : s->etrecord->warnings)
                    s->comparison->warnings.push_back(w.describe());
            s->comparison->notes.insert(s->comparison->notes.end(), backendNotes.begin(), backendNotes.end());
            s->comparison->warnings.insert(s->comparison->warnings.end(), backendWarnings.begin(),
                                           backendWarnings.end());
            staged.pending = std::move(c.value().pending);
            s->complete = false;
        } else {
            s->errors.push_back(c.error());
        }
    }
    return staged;
}

void completeSession(Session& s, std::vector<OutputComparison> outputs, const SessionOptions& options,
                     const CaptureProvenance& provenance) {
    if (!s.comparison)
        return;
    s.etrecord_sha256 = provenance.etrecord_sha256;
    if (provenance.warning)
        s.comparison->warnings.push_back(*provenance.warning);
    finishComparison(*s.comparison, std::move(outputs), s.etrecord.get());
    // Nothing compared (another model's capture, a method the program lacks, the
    // method-load block of a run, no debug buffer): a warning, so that it reaches
    // the JSON report and the app as well as the terminal.
    const auto& rows = s.comparison->rows;
    if (!comparedAnything(*s.comparison))
        s.comparison->warnings.push_back(
            "no op was compared (" + std::to_string(rows.size()) + (rows.size() == 1 ? " row" : " rows") +
            ", none with numbers): " +
            (s.debug_buffer_file
                 ? "check that the capture, the ETRecord, the method and the run belong together"
                 : "no debug buffer was given or chosen, so the runtime tensors are missing"));
    if (s.capture)
        if (auto note = delegateGranularityNote(*s.comparison, *s.capture))
            s.comparison->notes.push_back(std::move(*note));
    s.first_divergence = firstDivergence(*s.comparison, options.threshold);
    const ExportGraph* graph = s.etrecord && s.capture ? referenceGraphFor(*s.etrecord, *s.capture) : nullptr;
    s.introducers = errorIntroducers(*s.comparison, graph);
    // Each row's time, when the compared run logged any (an ETDump of debug events
    // alone, as a synthetic one, has no timing to read: no table is built).
    const auto timed = [&] {
        if (!s.dump || s.comparison->run >= s.dump->runs.size())
            return false;
        const auto& events = s.dump->runs[s.comparison->run].events;
        return std::any_of(events.begin(), events.end(),
                           [](const Event& e) { return std::holds_alternative<ProfileEvent>(e); });
    };
    if (timed()) {
        // Built once per workspace, when there is one: every run of a loop shares it.
        Workspace none;
        s.profile = (options.workspace ? *options.workspace : none).profileTable(s.dump, s.etrecord);
        if (auto latency = comparisonLatency(*s.profile, *s.comparison))
            s.latency = std::make_shared<const ComparisonLatency>(std::move(*latency));
    }
    s.complete = true;
}

Session withThreshold(const Session& session, const MetricThreshold& threshold) {
    Session s = session;
    s.threshold = threshold;
    if (s.comparison && s.complete)
        s.first_divergence = firstDivergence(*s.comparison, threshold);
    return s;
}

ReportContext reportContextFor(const Session& s, std::vector<InputProvenance> inputs) {
    ReportContext ctx;
    ctx.threshold = s.threshold;
    ctx.first_divergence = s.first_divergence;
    ctx.introducers = s.introducers;
    ctx.latency = s.latency;
    ctx.inputs = std::move(inputs);
    RunReference reference = runReference(s.capture.get());
    ctx.reference_program = std::move(reference.program);
    ctx.reference_kind = std::move(reference.kind);
    return ctx;
}

std::vector<InputProvenance> hashInputs(const SessionFiles& files,
                                        const std::optional<std::string>& etrecordSha256) {
    std::vector<InputProvenance> out;
    const std::pair<InputRole, const std::shared_ptr<const MappedFile>*> roles[] = {
        {InputRole::EtDump, &files.etdump},
        {InputRole::DebugBuffer, &files.debug_buffer},
        {InputRole::EtRecord, &files.etrecord},
        {InputRole::Capture, &files.capture}};
    for (const auto& [role, file] : roles)
        if (*file) {
            // A backend's run is its own debug buffer (backend_run.h): hashed once.
            const std::string& path = (*file)->path();
            const auto same = std::find_if(out.begin(), out.end(),
                                           [&path](const InputProvenance& p) { return p.path == path; });
            std::string digest = same != out.end()                           ? same->sha256
                                 : file == &files.etrecord && etrecordSha256 ? *etrecordSha256
                                                                             : sha256Hex(**file);
            out.push_back({role, path, (*file)->size(), std::move(digest)});
        }
    return out;
}

std::vector<InputProvenance> withEtRecordDigest(std::vector<InputProvenance> others, const Session& s) {
    if (!s.etrecord_file)
        return others;
    SessionFiles only;
    only.etrecord = s.etrecord_file;
    auto etrecord = hashInputs(only, s.etrecord_sha256);
    // Report order: etdump, debug_buffer, etrecord, capture.
    const auto at = std::find_if(others.begin(), others.end(),
                                 [](const InputProvenance& p) { return p.role == InputRole::Capture; });
    others.insert(at, std::move(etrecord.front()));
    return others;
}

ReportContext reportContextFor(const Session& s) {
    SessionFiles files;
    files.etdump = s.etdump_file;
    files.debug_buffer = s.debug_buffer_file;
    files.etrecord = s.etrecord_file;
    files.capture = s.capture_file;
    // The ETRecord's digest is known when the provenance check hashed it.
    return reportContextFor(s, hashInputs(files, s.etrecord_sha256));
}

} // namespace gapscope
