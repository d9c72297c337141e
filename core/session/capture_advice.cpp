#include "core/session/capture_advice.h"

#include "core/session/session.h"

#include <filesystem>

namespace gapscope {

namespace {

bool delegatesTo(const EtRecord& record, const std::string& backend) {
    for (const auto& [method, maps] : record.methods)
        for (const auto& [instruction, mapping] : maps.delegate_map)
            if (mapping.backend == backend)
                return true;
    return false;
}

std::string quoted(const std::string& path) {
    // Shell-quoted, so that the command can be pasted as it is.
    std::string out = "'";
    for (char c : path)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

std::optional<std::string> captureAdvice(const Session& s) {
    if (s.capture || !s.etrecord || !s.etrecord_file)
        return std::nullopt;
    const std::filesystem::path etrecord(s.etrecord_file->path());
    const std::string out = (etrecord.parent_path() / "capture.gscap.safetensors").string();
    if (delegatesTo(*s.etrecord, "QnnBackend"))
        return "QNN programs are captured while QNN's intermediate debugger is alive, in the script that "
               "lowers and runs the model: from gapscope_capture.capture import capture_from_qnn_debugger; "
               "capture_from_qnn_debugger(debugger).write(" +
               quoted(out) + ") (python/README.md)";
    std::string method;
    if (s.comparison && !s.comparison->method.empty() && s.comparison->method != "forward")
        method = " --method " + s.comparison->method;
    return "Make the reference with: gapscope-capture from-etrecord " + quoted(etrecord.string()) +
           " --inputs INPUTS.safetensors" + method + " -o " + quoted(out) +
           " (INPUTS.safetensors: the inputs the device ran on, as inputs/0, inputs/1, …), then open this "
           "folder again";
}

} // namespace gapscope
