#include "core/session/capture_advice.h"

#include "core/backends/backend_conventions.h"
#include "core/session/capture_request.h"
#include "core/session/session.h"

#include <filesystem>

namespace gapscope {

namespace {

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
    const std::string out =
        captureRequestFor(etrecord.string(), {}).output; // where --make-capture writes it too
    if (const BackendConventions* c = scriptCaptureBackend(*s.etrecord)) {
        const std::string hint(c->capture_hint), label(c->label);
        const auto dot = hint.rfind('.');
        const std::string module = hint.substr(0, dot), function = hint.substr(dot + 1);
        return label + " programs are captured while " + label +
               "'s intermediate debugger is alive, in the script that lowers and runs the model: from " +
               module + " import " + function + "; " + function + "(debugger).write(" + quoted(out) +
               ") (python/README.md)";
    }
    std::string method;
    if (s.comparison && !s.comparison->method.empty() && s.comparison->method != "forward")
        method = " --method " + s.comparison->method;
    return "Make the reference with: gapscope-capture from-etrecord " + quoted(etrecord.string()) +
           " --inputs INPUTS.safetensors" + method + " -o " + quoted(out) +
           " (INPUTS.safetensors: the inputs the device ran on, as inputs/0, inputs/1, …), then open this "
           "folder again";
}

} // namespace gapscope
