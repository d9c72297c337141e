#include "core/session/session.h"

#include "core/align/debug_handle_resolver.h"
#include "core/capture/safetensors_file.h"
#include "core/common/sha256.h"
#include "core/compare/delegate_granularity.h"
#include "core/compare/run_checks.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/session/debug_buffer_choice.h"
#include "core/session/stage_runner.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <set>

namespace gapscope {

SessionInputs sessionInputsFromPaths(const std::vector<std::string>& paths, std::vector<Error>& errors) {
    namespace fs = std::filesystem;
    SessionInputs in;
    std::vector<std::string> files;
    std::set<std::string> seen;
    const auto add = [&](const std::string& path) {
        if (seen.insert(path).second)
            files.push_back(path);
    };
    // Named files first, so that a file also found in a named folder counts as named.
    for (const auto& p : paths) {
        std::error_code ec;
        if (!fs::is_directory(p, ec))
            in.named.push_back(fs::path(p).lexically_normal().string());
    }
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> inside;
            for (const auto& entry : fs::directory_iterator(p, ec))
                if (entry.is_regular_file(ec))
                    inside.push_back(entry.path().lexically_normal().string());
            std::sort(inside.begin(), inside.end());
            for (const auto& f : inside)
                add(f);
        } else {
            const fs::path given = fs::path(p).lexically_normal();
            add(given.string());
            // ExecuTorch writes the debug buffer beside the ETDump.
            if (given.extension() == ".etdp") {
                auto sibling = given;
                sibling.replace_extension(".debug.bin");
                std::vector<fs::path> siblings{sibling};
                for (const auto& name : executorchDebugBufferNames())
                    siblings.push_back(given.parent_path() / name);
                for (const auto& sib : siblings)
                    if (fs::is_regular_file(sib, ec))
                        add(sib.string());
            }
        }
    }
    for (const auto& f : files) {
        auto mapped = MappedFile::open(f);
        if (mapped)
            in.files.push_back(mapped.value());
        else
            errors.push_back(mapped.error());
    }
    return in;
}

namespace {

// A dump whose delegate events all carry their handle in the name (QNN's first
// design, `<name>__debugID_<N>`) resolves without an ETRecord, so none is missing.
bool namesItsOwnHandles(const EtDump& dump) {
    bool any = false;
    for (const auto& run : dump.runs)
        for (const auto& e : run.events)
            if (const auto* d = std::get_if<DebugEvent>(&e); d && d->delegate_debug_id_int != -1) {
                return false;
            } else if (d && d->delegate_debug_id_str && !d->delegate_debug_id_str->empty()) {
                if (!debugIdSuffix(*d->delegate_debug_id_str))
                    return false;
                any = true;
            }
    return any;
}

struct CaptureCandidate {
    std::shared_ptr<const MappedFile> file;
    std::string method;
    // ExecuTorch compares against a graph of the ETRecord; a capture of anything
    // else (a float model) is a second opinion.
    bool etrecord_graph = false;
    // The capture read whole, so the one chosen is not read a second time.
    std::shared_ptr<const AotCapture> parsed;
};

CaptureCandidate captureCandidate(const std::shared_ptr<const MappedFile>& file, Workspace& workspace) {
    CaptureCandidate c{file, "", false, nullptr};
    auto capture = workspace.capture(file); // the header only: tensors stay in the mapping
    if (!capture)
        return c;
    c.parsed = capture.value();
    c.method = c.parsed->method;
    const std::string g = c.parsed->reference_graph.value_or("");
    c.etrecord_graph =
        g == "exported_program" || g == "edge_dialect_exported_program" || g.find('/') != std::string::npos;
    return c;
}

std::shared_ptr<const MappedFile> pickCapture(const std::vector<CaptureCandidate>& captures,
                                              const std::string& method) {
    const std::string wanted = method.empty() ? "forward" : method;
    const bool any = std::none_of(captures.begin(), captures.end(),
                                  [&](const CaptureCandidate& c) { return c.method == wanted; });
    const CaptureCandidate* best = nullptr;
    for (const auto& c : captures)
        if ((any || c.method == wanted) && (!best || (!best->etrecord_graph && c.etrecord_graph)))
            best = &c;
    return best ? best->file : nullptr;
}

} // namespace

std::vector<std::string> changedInputs(const Session& session) {
    std::vector<std::string> changed;
    for (const auto& f :
         {session.etdump_file, session.debug_buffer_file, session.etrecord_file, session.capture_file})
        if (f && f->changedOnDisk())
            changed.push_back(f->path());
    return changed;
}

void protectInputs(const SessionFiles& files) {
    for (const auto& f : {files.etdump, files.debug_buffer, files.etrecord, files.capture})
        if (f)
            f->protectFromOutputs();
    for (const auto& f : files.captures)
        f->protectFromOutputs();
}

namespace {

// The same file under two spellings (./a/b and a/b, or an absolute path).
bool samePath(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    if (fs::path(a).lexically_normal() == fs::path(b).lexically_normal())
        return true;
    std::error_code ec;
    return fs::equivalent(a, b, ec);
}

bool namedLikeEtdump(const std::string& path) {
    const auto ext = std::filesystem::path(path).extension().string();
    return ext == ".etdp" || ext == ".etdump";
}

// ExecuTorch's examples save it as etrecord.bin; users as model.etrecord or
// my_etrecord.zip.
bool namedLikeEtRecord(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    // A document about an ETRecord (from-etrecord.json, etrecord_notes.txt) says what it is by its extension.
    for (const char* document :
         {".json", ".txt", ".csv", ".md", ".log", ".py", ".html", ".png", ".pdf", ".svg"})
        if (name.size() > std::strlen(document) &&
            name.compare(name.size() - std::strlen(document), std::string::npos, document) == 0)
            return false;
    return name.find("etrecord") != std::string::npos;
}

} // namespace

SessionFiles sortSessionFiles(const SessionInputs& inputs, const std::string& method,
                              const std::string& preferredCapture, const std::string& preferredDebugBuffer,
                              Workspace* workspace) {
    Workspace local; // parses for this sort alone
    if (!workspace)
        workspace = &local;
    SessionFiles s;
    std::vector<std::shared_ptr<const MappedFile>> raw, other;
    std::vector<CaptureCandidate> captures;
    for (const auto& f : inputs.files) {
        // A file picked for the debug buffer fills it, whatever it looks like.
        if (!preferredDebugBuffer.empty() && !s.debug_buffer && samePath(f->path(), preferredDebugBuffer)) {
            s.debug_buffer = f;
            continue;
        }
        const FileKind kind = detectFileKind(f->bytes());
        // Content decides, but a name that says otherwise is probably a mix-up
        // (an ETRecord saved as run.etdp): said, or the banner would only say
        // "ETDump missing" without naming the file.
        if (namedLikeEtdump(f->path()) && (kind == FileKind::EtRecord || kind == FileKind::Capture))
            s.unrecognized.push_back(makeError(
                ErrorCode::BadMagic,
                std::string("named like an ETDump but holds ") +
                    (kind == FileKind::EtRecord ? "an ETRecord" : "an AOT capture") + ": read as one",
                f->path()));
        switch (kind) {
        case FileKind::EtDump:
            if (!s.etdump)
                s.etdump = f;
            break;
        case FileKind::EtRecord:
            if (!s.etrecord)
                s.etrecord = f;
            break;
        case FileKind::Capture:
            captures.push_back(captureCandidate(f, *workspace));
            s.capture_methods.push_back(captures.back().method);
            s.captures.push_back(f);
            s.parsed_captures.push_back(captures.back().parsed);
            break;
        case FileKind::Raw: raw.push_back(f); break;
        // ExecuTorch's model.pte and inputs.pt, notes, logs, charts: never a debug
        // buffer, but said when named like an input (a log saved as run.etdp).
        case FileKind::Program:
        case FileKind::TorchArchive:
        case FileKind::Text:
        case FileKind::Other: other.push_back(f); break;
        }
    }
    for (const auto& c : captures)
        if (!preferredCapture.empty() && samePath(c.file->path(), preferredCapture))
            s.capture = c.file;
    const bool asked = s.capture != nullptr;
    s.capture_asked = asked;
    if (!asked)
        s.capture = pickCapture(captures, method);
    // Captures of other methods are a multi-method program's, not a choice.
    const auto chosen = std::find_if(captures.begin(), captures.end(),
                                     [&](const CaptureCandidate& c) { return c.file == s.capture; });
    if (chosen != captures.end())
        s.parsed_capture = chosen->parsed;
    // A capture the user asked for needs no warning: it is their choice, and the
    // Reference selector names it.
    if (!asked && chosen != captures.end() &&
        std::count_if(captures.begin(), captures.end(),
                      [&](const CaptureCandidate& c) { return c.method == chosen->method; }) > 1)
        s.capture_choice =
            "of method '" + chosen->method + "'" +
            (chosen->etrecord_graph ? ", taken from the ETRecord's graph, ExecuTorch's reference"
                                    : ", the first given");
    if (s.etdump && !s.debug_buffer) {
        auto choice = chooseDebugBuffer(s.etdump->path(), raw, inputs.named);
        s.debug_buffer = choice.file;
        s.debug_buffer_candidates = std::move(choice.candidates);
    }
    // A file named like an input that nothing recognised: say what is wrong
    // with it (a corrupt run.etdp would otherwise read as "ETDump missing").
    raw.insert(raw.end(), other.begin(), other.end());
    for (const auto& r : raw) {
        if (r == s.debug_buffer)
            continue;
        const auto ext = std::filesystem::path(r->path()).extension().string();
        if (namedLikeEtdump(r->path())) {
            EtdumpReadOptions named;
            named.name = r->path();
            auto parsed = parseEtdump(r->bytes(), named);
            if (!parsed)
                s.unrecognized.push_back(parsed.error());
        } else if (ext == ".safetensors") {
            auto parsed = SafetensorsFile::read(r);
            s.unrecognized.push_back(
                parsed
                    ? makeError(ErrorCode::BadMagic,
                                "a safetensors file but not a Gapscope AOT capture (no gapscope.aot_capture "
                                "metadata): not used",
                                r->path())
                    : parsed.error());
        } else if (namedLikeEtRecord(r->path())) {
            auto parsed = readEtRecord(r);
            if (!parsed)
                s.unrecognized.push_back(parsed.error());
        }
    }
    protectInputs(s);
    return s;
}

std::unique_ptr<Session> loadSession(const SessionInputs& inputs, const SessionOptions& options) {
    return loadSessionFiles(sortSessionFiles(inputs, options.comparison.method, options.capture,
                                             options.debug_buffer, options.workspace.get()),
                            options);
}

StagedSession openSession(const SessionInputs& inputs, const SessionOptions& options) {
    return openSessionFiles(sortSessionFiles(inputs, options.comparison.method, options.capture,
                                             options.debug_buffer, options.workspace.get()),
                            options);
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
    return openSession(set->inputs, options);
}

std::unique_ptr<Session> loadSessionFiles(const SessionFiles& files, const SessionOptions& options) {
    auto staged = openSessionFiles(files, options);
    Session& s = *staged.session;
    if (s.complete)
        return std::move(staged.session);
    StageCallbacks stages;
    stages.measured = [&](std::vector<RowMeasurement> batch, std::size_t, std::size_t) {
        for (const auto& m : batch)
            applyMeasurement(*s.comparison, m);
    };
    stages.completed = [&](std::vector<OutputComparison> outputs, CaptureProvenance provenance) {
        completeSession(s, std::move(outputs), options, provenance);
    };
    runStages(s, staged.pending, stages);
    return std::move(staged.session);
}

StagedSession openSessionFiles(const SessionFiles& files, const SessionOptions& options) {
    protectInputs(files); // however the files were chosen
    StagedSession staged;
    staged.session = std::make_unique<Session>();
    auto& s = staged.session;
    s->errors = files.unrecognized;
    s->complete = true; // until a comparison is planned
    s->threshold = options.threshold;
    s->etdump_file = files.etdump;
    s->debug_buffer_file = files.debug_buffer;
    s->etrecord_file = files.etrecord;
    s->capture_file = files.capture;
    s->capture_methods = files.capture_methods;
    for (const auto& c : files.captures)
        s->capture_paths.push_back(c->path());

    // Parsed here, or taken from the workspace, where another comparison of the
    // same files (another run, method or capture) parsed them already.
    s->workspace = options.workspace ? options.workspace : std::make_shared<Workspace>();
    s->file_set = options.file_set;
    Workspace& workspace = *s->workspace;
    if (s->etdump_file) {
        auto d = workspace.etdump(s->etdump_file, s->debug_buffer_file, options.progress);
        if (d)
            s->dump = d.value();
        else if (d.error().code == ErrorCode::Cancelled) {
            s->errors.push_back(d.error());
            return staged;
        } else
            s->errors.push_back(d.error());
    } else {
        s->missing.push_back("ETDump");
    }
    if (s->etdump_file && !s->debug_buffer_file) {
        s->missing.push_back("debug buffer");
        s->debug_buffer_candidates = files.debug_buffer_candidates;
    }
    if (s->etrecord_file) {
        auto r = workspace.etrecord(s->etrecord_file);
        if (r)
            s->etrecord = r.value();
        else
            s->errors.push_back(r.error());
    } else if (!s->dump || !namesItsOwnHandles(*s->dump)) {
        s->missing.push_back("ETRecord");
    }
    // Captures of a sequence of steps (state carried from one to the next): the one of
    // the compared run's execution, unless one was asked for.
    std::string captureChoice = files.capture_choice;
    std::shared_ptr<const AotCapture> parsedCapture = files.parsed_capture;
    if (!files.capture_asked && parsedCapture && parsedCapture->step && s->dump) {
        const std::string method =
            options.comparison.method.empty() ? parsedCapture->method : options.comparison.method;
        const auto execution = executionIndex(*s->dump, s->etrecord.get(), method, options.comparison.run);
        for (std::size_t i = 0; execution && i < files.parsed_captures.size(); ++i) {
            const auto& c = files.parsed_captures[i];
            if (c && c->method == parsedCapture->method && c->step && *c->step == *execution) {
                s->capture_file = files.captures[i];
                parsedCapture = c;
                captureChoice.clear(); // the step is the choice: no other capture is of this run
                break;
            }
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
        s->missing.push_back("AOT capture");
    }

    if (s->dump && s->capture) {
        auto c = planComparison(*s->dump, s->etrecord.get(), *s->capture, options.comparison);
        if (c) {
            s->comparison = std::move(c.value().comparison);
            if (!captureChoice.empty())
                s->comparison->warnings.insert(
                    s->comparison->warnings.begin(),
                    "several captures of this method were given; comparing '" +
                        std::filesystem::path(s->capture_file->path()).filename().string() + "' (" +
                        captureChoice + "). Pick another with --capture or the app's Reference selector");
            // What the ETRecord reader left out (a graph it could not read, no
            // debug_handle_map) changes what can be resolved and named: said.
            if (s->etrecord)
                for (const auto& w : s->etrecord->warnings)
                    s->comparison->warnings.push_back(w.describe());
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
    ctx.inputs = std::move(inputs);
    return ctx;
}

std::vector<InputProvenance> hashInputs(const SessionFiles& files,
                                        const std::optional<std::string>& etrecordSha256) {
    std::vector<InputProvenance> out;
    const std::pair<const char*, const std::shared_ptr<const MappedFile>*> roles[] = {
        {"etdump", &files.etdump},
        {"debug_buffer", &files.debug_buffer},
        {"etrecord", &files.etrecord},
        {"capture", &files.capture}};
    for (const auto& [role, file] : roles)
        if (*file)
            out.push_back(
                {role, (*file)->path(), (*file)->size(),
                 file == &files.etrecord && etrecordSha256 ? *etrecordSha256 : sha256Hex((*file)->bytes())});
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
                                 [](const InputProvenance& p) { return p.role == "capture"; });
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
