#include "core/report/version_info.h"

#include "core/capture/aot_capture.h"

#include <sstream>

namespace gapscope {

// GAPSCOPE_VERSION, GAPSCOPE_EXPORTER_VERSION and GAPSCOPE_QT_VERSION come from
// core/CMakeLists.txt (this file alone is compiled with them, so a version bump
// rebuilds one object).

std::string gapscopeVersion() {
    return GAPSCOPE_VERSION;
}

std::string executorchVersion() {
    return "1.5.1"; // the e2e tests' pinned executorch==1.5.1
}

unsigned etdumpSchemaVersion() {
    return 0;
}

int captureFormatVersion() {
    return AotCapture::kVersion;
}

std::string exporterVersion() {
    return GAPSCOPE_EXPORTER_VERSION;
}

std::string qtBuildVersion() {
    return GAPSCOPE_QT_VERSION;
}

std::string versionText(std::string_view program, std::string_view qtRuntime) {
    std::ostringstream out;
    out << program << ' ' << gapscopeVersion() << '\n'
        << "ExecuTorch:     " << executorchVersion() << " (ETDump schema version " << etdumpSchemaVersion()
        << ", ETRecord, Inspector numeric-gap semantics)\n"
        << "AOT capture:    format version " << captureFormatVersion() << '\n'
        << "Exporter:       gapscope-capture " << exporterVersion() << '\n';
    const std::string qt = qtBuildVersion();
    if (qt.empty())
        out << "Qt:             none (built without the desktop app)\n";
    else if (qtRuntime.empty())
        out << "Qt:             " << qt << " (the desktop app's; gapscope-cli does not use Qt)\n";
    else
        out << "Qt:             " << qtRuntime << " (built against " << qt << ")\n";
    return out.str();
}

} // namespace gapscope
