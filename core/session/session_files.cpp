// The files of a session: gathered from paths, then sorted by content into
// their roles (sortSessionFiles).
#include "core/align/saved_outputs.h"
#include "core/capture/safetensors_file.h"
#include "core/common/side_task.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/session/debug_buffer_choice.h"
#include "core/session/session.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

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

// A safetensors file whose tensors are all named inputs/<index>: model inputs
// for `gapscope-capture --inputs` (capture_format.read_inputs), no capture.
bool isModelInputsFile(const SafetensorsFile& file) {
    if (file.tensors().empty())
        return false;
    for (const auto& [name, tensor] : file.tensors()) {
        constexpr std::string_view prefix = "inputs/";
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
            name.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
            return false;
    }
    return true;
}

struct CaptureCandidate {
    std::shared_ptr<const MappedFile> file;
    std::string method;
    // ExecuTorch compares against a graph of the ETRecord; a capture of anything
    // else (a float model) is a second opinion.
    bool etrecord_graph = false;
    // The capture read whole, so the one chosen is not read a second time.
    std::shared_ptr<const AotCapture> parsed;
    // What the reader said when it could not read it (SessionFiles::capture_errors).
    std::optional<Error> error;
};

CaptureCandidate captureCandidate(const std::shared_ptr<const MappedFile>& file, Workspace& workspace) {
    CaptureCandidate c{file, "", false, nullptr, std::nullopt};
    auto capture = workspace.capture(file); // the header only: tensors stay in the mapping
    if (!capture) {
        c.error = capture.error();
        return c;
    }
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
                              Workspace* workspace, const ProgressFn& etdumpProgress,
                              const ComparisonOptions* plan, std::optional<EventsBuilt>* events) {
    const bool keeps = workspace != nullptr; // what is read here outlives the sort
    Workspace local;                         // parses for this sort alone
    if (!workspace)
        workspace = &local;
    SessionFiles s;
    std::vector<std::shared_ptr<const MappedFile>> raw, other, backendRuns;
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
        case FileKind::Capture: s.captures.push_back(f); break; // read below
        case FileKind::BackendRun: backendRuns.push_back(f); break;
        case FileKind::Raw: raw.push_back(f); break;
        // ExecuTorch's model.pte and inputs.pt, notes, logs, charts: never a debug
        // buffer, but said when named like an input (a log saved as run.etdp).
        case FileKind::Program:
        case FileKind::TorchArchive:
        case FileKind::SavedSession:
        case FileKind::Text:
        case FileKind::Other: other.push_back(f); break;
        }
    }
    // A backend's own record of its run (a TOSA run) stands where the ETDump
    // does, and holds its tensors itself (core/backends/backend_run.h).
    for (const auto& run : backendRuns)
        if (!s.etdump) {
            s.etdump = s.debug_buffer = run;
        } else {
            s.unrecognized.push_back(makeError(ErrorCode::Unsupported,
                                               "a record of the run besides " + s.etdump->path() +
                                                   ", which is the one read: not used",
                                               run->path()));
        }
    const bool backendRun = !backendRuns.empty() && s.etdump == backendRuns.front();
    if (s.etdump && !s.debug_buffer) {
        auto choice = chooseDebugBuffer(s.etdump->path(), raw, inputs.named);
        s.debug_buffer = choice.file;
        s.debug_buffer_candidates = std::move(choice.candidates);
    }
    {
        // The ETDump is read on another core while the captures are read here
        // (both are needed to open; neither needs the other), into the workspace
        // openSessionFiles takes it from. Joined before the sort returns.
        // Whether the dump names its own handles is found there too: a pass over
        // every event (2 ms of 50,000 ops) the opening would otherwise wait for.
        std::optional<SideTask<std::optional<bool>>> etdump;
        std::optional<EventsBuilt> built; // written by the side task, read after it joins
        if (keeps && s.etdump && !backendRun)
            etdump.emplace([&, etrecordFile = s.etrecord, anyCapture = !s.captures.empty()] {
                auto d = workspace->etdump(s.etdump, s.debug_buffer, etdumpProgress);
                if (!d)
                    return std::optional<bool>();
                // The plan's events, when the next stage plans one (no capture, no plan).
                if (plan && events && anyCapture) {
                    std::shared_ptr<const EtRecord> etrecord;
                    bool read = true;
                    if (etrecordFile) { // kept for the opening, a fault too
                        auto r = workspace->etrecord(etrecordFile);
                        read = static_cast<bool>(r);
                        if (r)
                            etrecord = r.value();
                    }
                    if (read)
                        built = buildEventsBeforeCapture(*d.value(), etrecord.get(), *plan);
                }
                return std::optional<bool>(namesItsOwnHandles(*d.value()));
            });
        for (const auto& f : s.captures) {
            captures.push_back(captureCandidate(f, *workspace));
            s.parsed_captures.push_back(captures.back().parsed);
        }
        if (etdump)
            s.etdump_names_its_handles = etdump->get();
        if (events)
            *events = std::move(built);
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
    // Captures that cannot serve are said (SessionFiles::capture_errors): the
    // reader's own located error, the same `gapscope-cli capture` gives.
    for (const auto& c : captures)
        if (c.error && c.file != s.capture)
            s.capture_errors.push_back(*c.error);
    // One map of (method, step) → the first capture saying it: a decode loop
    // offers one capture per step, thousands of them.
    std::map<std::pair<std::string, std::uint64_t>, const CaptureCandidate*> stepOwner;
    for (std::size_t i = 0; i < captures.size(); ++i) {
        const auto& c = captures[i];
        if (!c.parsed || !c.parsed->step)
            continue;
        const auto [owner, first] = stepOwner.emplace(std::make_pair(c.parsed->method, *c.parsed->step), &c);
        if (first)
            s.step_captures.emplace(owner->first, i);
        else
            s.capture_errors.push_back(makeError(
                ErrorCode::Unsupported,
                "says step " + std::to_string(*c.parsed->step) + " of method '" + c.parsed->method +
                    "', as " + owner->second->file->path() +
                    " does: which one is that execution's is unknown; remove one, or name the one to compare "
                    "with --capture",
                c.file->path(), "step"));
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
            // The device's inputs as `gapscope-capture --inputs` reads them (inputs/0,
            // inputs/1, …; one file per step of a decode loop): what they are, not
            // a capture gone wrong, so not warned about (issue 54: 65 warnings on a
            // 65-step session).
            // A file named for the inputs (inputs.safetensors, inputs_step3.safetensors)
            // is the user's data whatever its tensors are called (issue 56: every
            // folder with one showed a warning about it).
            const auto stem = std::filesystem::path(r->path()).stem().string();
            if (parsed && (isModelInputsFile(parsed.value()) || stem.rfind("inputs", 0) == 0))
                continue;
            // The method's outputs as the user saved them (outputs/<index>): the
            // taps' values when the ETDump holds none (saved_outputs.h). The first one.
            if (parsed && SavedOutputs::namedLikeSavedOutputs(parsed.value())) {
                if (!s.saved_outputs)
                    s.saved_outputs = r;
                else
                    s.unrecognized.push_back(makeError(
                        ErrorCode::Unsupported,
                        "a second file of saved outputs: " + s.saved_outputs->path() + " is the one used",
                        r->path()));
                continue;
            }
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
    auto offered = std::make_shared<CapturesOffered>();
    for (const auto& c : captures) {
        offered->methods.push_back(c.method);
        offered->paths.push_back(c.file->path());
    }
    s.offered = std::move(offered);
    protectInputs(s);
    return s;
}

} // namespace gapscope
