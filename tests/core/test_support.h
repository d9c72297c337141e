#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/common/result.h"
#include "core/compare/comparison.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/session/session.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gapscope::test {

std::string fixturePath(const std::string& relative);
std::vector<std::uint8_t> readBytes(const std::string& path);

// A safetensors file's bytes: the 8-byte length, `header` as given (any text,
// valid or not) and `dataBytes` zeros.
std::vector<std::uint8_t> safetensorsBytes(const std::string& header, std::size_t dataBytes = 0);
// The same, mapped in memory under `name`.
std::shared_ptr<const MappedFile> safetensorsFileOf(const std::string& name, const std::string& header,
                                                    std::size_t dataBytes = 0);

// Loads shared/fixtures/etdump/<name>.etdp with its .debug.bin; fails the test on error.
EtDump loadFixture(const std::string& name, bool withDebugBuffer = true);

// Parses bytes held in memory, with an optional in-memory debug buffer.
Result<EtDump> parseBytes(const std::vector<std::uint8_t>& etdump,
                          const std::vector<std::uint8_t>* debugBuffer = nullptr);

bool hasWarning(const EtDump& dump, WarningCode code);

// The files of a session folder as ExecuTorch and the exporter name them
// (run.etdp, run.debug.bin, etrecord.bin, capture.gscap.safetensors), read; fails
// the test on error.
struct SessionDir {
    EtDump dump;
    EtRecord etrecord;
    AotCapture capture;
};
SessionDir loadSessionDir(const std::string& dir);

// A session folder read and compared with the default options; fails the test
// on error. Held together because the comparison points into the session.
struct ComparedDir {
    SessionDir session;
    Comparison comparison;
};
std::unique_ptr<const ComparedDir> compareSessionDir(const std::string& dir);

// A session folder's files as the app gathers them; fails the test if one
// cannot be mapped.
SessionInputs sessionInputsOf(const std::string& dir);
// The JSON report of a compared session (no input digests): equal strings,
// equal sessions. Fails the test when nothing was compared.
std::string reportJsonOf(const Session& session);

} // namespace gapscope::test
