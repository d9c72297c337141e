#pragma once

#include <string>
#include <string_view>

namespace gapscope {

// What a build of Gapscope was made from and reads: the one version number
// (CMake's project(VERSION)), the ExecuTorch release whose formats and Inspector
// semantics it matches, the format versions it accepts and the Qt and exporter
// versions it was built against. `--version` of both executables and the About box
// print it; a bug report quoting it says exactly which build saw the file.

std::string gapscopeVersion();
// The ExecuTorch release whose ETDump schema, ETRecord layout and Inspector
// semantics Gapscope reads and matches (its parity tests run against it).
std::string executorchVersion();
// ETDump.version as ExecuTorch writes it (ETDUMP_VERSION, devtools/etdump).
unsigned etdumpSchemaVersion();
// The newest AOT capture format version the reader accepts.
int captureFormatVersion();
// The Python exporter (gapscope-capture) in this source tree; equal to
// gapscopeVersion() (CMake refuses to configure otherwise).
std::string exporterVersion();
// The Qt the desktop app was built against, or "" in a build without the GUI.
std::string qtBuildVersion();

// The `--version` text: "<program> <version>" and one line per component.
// qtRuntime: the Qt the running process loaded (qVersion()), or "" for the CLI,
// which does not load Qt.
std::string versionText(std::string_view program, std::string_view qtRuntime);

} // namespace gapscope
