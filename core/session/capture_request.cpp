#include "core/session/capture_request.h"

#include "core/backends/backend_conventions.h"
#include "core/session/session.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace gapscope {

CaptureRequest captureRequestFor(const std::string& etrecordPath, const std::string& method) {
    const std::filesystem::path etrecord(etrecordPath);
    return {etrecordPath, (etrecord.parent_path() / "capture.gscap.safetensors").string(),
            method == "forward" ? std::string() : method};
}

const BackendConventions* scriptCaptureBackend(const EtRecord& record) {
    for (const auto& [method, maps] : record.methods)
        for (const auto& [instruction, mapping] : maps.delegate_map)
            if (const auto& c = backendConventions(mapping.backend); !c.capture_hint.empty())
                return &c;
    return nullptr;
}

std::optional<CaptureRequest> captureRequest(const Session& s) {
    if (s.capture || !s.etrecord || !s.etrecord_file || scriptCaptureBackend(*s.etrecord))
        return std::nullopt;
    const std::string method = s.comparison ? s.comparison->method : std::string();
    return captureRequestFor(s.etrecord_file->path(), method);
}

std::vector<std::string> exporterCommand(std::string& why) {
    if (const char* named = std::getenv("GAPSCOPE_CAPTURE"); named && *named) {
        std::vector<std::string> words;
        std::istringstream in(named);
        for (std::string word; in >> word;)
            words.push_back(word);
        if (!words.empty())
            return words;
    }
    // As execvp would find it, but said beforehand so that the app can offer it or not.
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / "gapscope-capture";
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
            return {candidate.string()};
    }
    why = "the exporter, gapscope-capture, is not on PATH: pip install 'gapscope_capture[executorch]' "
          "(python/README.md), or name its command in GAPSCOPE_CAPTURE";
    return {};
}

std::vector<std::string> forSessionArguments(const CaptureRequest& r) {
    std::vector<std::string> args{"for-session", r.etrecord, "-o", r.output};
    if (!r.method.empty())
        args.insert(args.end(), {"--method", r.method});
    return args;
}

std::string serveRequestLine(const CaptureRequest& r) {
    nlohmann::json request{{"etrecord", r.etrecord}, {"output", r.output}};
    if (!r.method.empty())
        request["method"] = r.method;
    return request.dump() + "\n";
}

WorkerEvent parseWorkerEvent(std::string_view line) {
    WorkerEvent e;
    e.message = std::string(line);
    const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object() || !parsed.contains("event") || !parsed["event"].is_string())
        return e;
    const auto text = [&](const char* key) {
        const auto it = parsed.find(key);
        return it != parsed.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const std::string kind = parsed["event"].get<std::string>();
    if (kind == "ready") {
        e.kind = WorkerEvent::Kind::Ready;
    } else if (kind == "progress") {
        e.kind = WorkerEvent::Kind::Progress;
        e.stage = text("stage");
        if (const auto it = parsed.find("fraction"); it != parsed.end() && it->is_number())
            e.fraction = std::clamp(it->get<double>(), 0.0, 1.0);
    } else if (kind == "done") {
        e.kind = WorkerEvent::Kind::Done;
        e.output = text("output");
        if (const auto it = parsed.find("records"); it != parsed.end() && it->is_number_integer())
            e.records = it->get<long>();
    } else if (kind == "error") {
        e.kind = WorkerEvent::Kind::Error;
        e.message = text("message");
    }
    return e;
}

} // namespace gapscope
