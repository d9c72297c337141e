#include "core/session/session_ladder.h"

#include "core/session/file_kind.h"
#include "core/session/session_steps.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace gapscope {

namespace {

constexpr const char* kStagesFolder = "stages";
std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

} // namespace

std::vector<std::shared_ptr<const MappedFile>>
ladderCaptures(const SessionFiles& files, const std::string& folder, std::vector<std::string>& notes) {
    std::vector<std::shared_ptr<const MappedFile>> out = files.captures;
    if (out.empty() && files.capture)
        out.push_back(files.capture);
    const auto stages = std::filesystem::path(folder) / kStagesFolder;
    std::error_code ec;
    if (folder.empty() || !std::filesystem::is_directory(stages, ec))
        return out;
    // The folder read as any session's (regular files only, the scan bounded) and
    // captures told from their content, as sortSessionFiles tells them.
    std::vector<Error> errors;
    const auto inputs = sessionInputsFromPaths({stages.string()}, errors);
    for (const auto& e : errors)
        notes.push_back(e.describe());
    std::vector<std::shared_ptr<const MappedFile>> found;
    for (const auto& file : inputs.files)
        if (detectFileKind(file->bytes()) == FileKind::Capture)
            found.push_back(file);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a->path() < b->path(); });
    for (const auto& file : found) {
        file->protectFromOutputs();
        out.push_back(file);
    }
    return out;
}

StageLadder openStageLadder(const Session& base, const SessionFiles& files,
                            const std::vector<std::shared_ptr<const MappedFile>>& captures,
                            SessionOptions options) {
    StageLadder empty;
    if (!base.comparison || !base.capture) {
        empty.notes.push_back("no comparison to build the ladder on");
        return empty;
    }
    const Comparison& c = *base.comparison;
    if (!options.workspace)
        options.workspace = std::make_shared<Workspace>();
    options.comparison.method = c.method;
    options.comparison.run = c.run;
    std::vector<std::string> notes;
    // Each stage's session is kept until the ladder is built: its rows view its capture.
    std::vector<std::unique_ptr<Session>> opened;
    std::vector<LadderReference> references;
    for (const auto& file : captures) {
        const std::string name = fileName(file->path());
        const bool own = base.capture_file && base.capture_file->path() == file->path();
        std::shared_ptr<const AotCapture> capture = own ? base.capture : nullptr;
        if (!capture) {
            auto parsed = options.workspace->capture(file);
            if (!parsed) {
                notes.push_back(parsed.error().describe());
                continue;
            }
            capture = parsed.value();
        }
        if (capture->method != c.method || capture->step != base.capture->step)
            continue; // another method's or step's: not a stage of this run, and not worth a note each
        const auto stage = ladderStageOf(*capture);
        if (!stage) {
            notes.push_back(name + ": a run of a module with no graph named: its stage cannot be told");
            continue;
        }
        const Session* session = &base;
        if (!own) {
            SessionFiles stageFiles = files;
            stageFiles.capture = file;
            stageFiles.parsed_capture = capture;
            stageFiles.capture_asked = true;
            stageFiles.capture_choice.clear();
            opened.push_back(loadSessionFiles(stageFiles, options));
            const Session& s = *opened.back();
            if (!s.errors.empty() || !s.comparison) {
                notes.push_back(
                    name + ": not compared: " +
                    (s.errors.empty() ? std::string("nothing to compare") : s.errors.front().describe()));
                continue;
            }
            session = &s;
        }
        references.push_back({*stage, file->path(), capture->reference_graph.value_or(""),
                              session->capture.get(), &*session->comparison});
    }
    // A quantised program: a capture records its outputs' quantisation (PT2E's
    // simulation, QNN's quant_attrs), or the device logged integers.
    bool quantized = false;
    for (const auto& r : references)
        for (const auto& record : r.capture->records)
            for (const auto& q : record.quantization)
                quantized = quantized || q.has_value();
    for (std::size_t i = 0; i < c.rows.size() && !quantized; ++i)
        quantized = c.rows[i].dequantized;
    auto ladder = buildStageLadder(c, std::move(references), quantized);
    ladder.notes.insert(ladder.notes.begin(), notes.begin(), notes.end());
    if (base.etdump_file)
        ladder.device_path = base.etdump_file->path();
    return ladder;
}

StageLadder ladderOfSession(const Session& session, const SessionOptions& options) {
    const SessionFiles files = stepFiles(session, options);
    std::string folder;
    if (session.etdump_file) {
        std::error_code ec;
        const auto parent = std::filesystem::path(session.etdump_file->path()).parent_path();
        if (!parent.empty() && std::filesystem::is_directory(parent, ec))
            folder = parent.string();
    }
    std::vector<std::string> notes;
    const auto captures = ladderCaptures(files, folder, notes);
    auto ladder = openStageLadder(session, files, captures, options);
    ladder.notes.insert(ladder.notes.end(), notes.begin(), notes.end());
    return ladder;
}

} // namespace gapscope
