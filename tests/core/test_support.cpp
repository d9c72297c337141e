#include "test_support.h"

#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/report/compare_report.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <iterator>

namespace gapscope::test {

std::string fixturePath(const std::string& relative) {
    return std::string(GAPSCOPE_FIXTURES_DIR) + "/" + relative;
}

std::vector<std::uint8_t> readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::uint8_t> safetensorsBytes(const std::string& header, std::size_t dataBytes) {
    std::vector<std::uint8_t> out(8 + header.size() + dataBytes, 0);
    const std::uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    std::memcpy(out.data() + 8, header.data(), header.size());
    return out;
}

std::shared_ptr<const MappedFile> safetensorsFileOf(const std::string& name, const std::string& header,
                                                    std::size_t dataBytes) {
    const auto bytes = safetensorsBytes(header, dataBytes);
    return MappedFile::fromBytes(name, bytes.data(), bytes.size());
}

EtDump loadFixture(const std::string& name, bool withDebugBuffer) {
    std::optional<std::string> buffer;
    if (withDebugBuffer)
        buffer = fixturePath("etdump/" + name + ".debug.bin");
    auto result = loadEtdump(fixturePath("etdump/" + name + ".etdp"), buffer);
    if (!result)
        FAIL(result.error().describe());
    return std::move(result).value();
}

Result<EtDump> parseBytes(const std::vector<std::uint8_t>& etdump,
                          const std::vector<std::uint8_t>* debugBuffer) {
    EtdumpReadOptions options;
    options.name = "test.etdp";
    if (debugBuffer)
        options.debug_buffer =
            MappedFile::fromBytes("test.debug.bin", debugBuffer->data(), debugBuffer->size());
    return parseEtdump({etdump.data(), etdump.size()}, options);
}

bool hasWarning(const EtDump& dump, WarningCode code) {
    for (const auto& w : dump.warnings)
        if (w.code == code)
            return true;
    return false;
}

SessionDir loadSessionDir(const std::string& dir) {
    auto dump = loadEtdump(dir + "/run.etdp", dir + "/run.debug.bin");
    auto record = loadEtRecord(dir + "/etrecord.bin");
    auto capture = loadAotCapture(dir + "/capture.gscap.safetensors");
    for (const Error* e : {dump ? nullptr : &dump.error(), record ? nullptr : &record.error(),
                           capture ? nullptr : &capture.error()})
        if (e)
            FAIL(e->describe());
    return {std::move(dump).value(), std::move(record).value(), std::move(capture).value()};
}

std::unique_ptr<const ComparedDir> compareSessionDir(const std::string& dir) {
    auto out = std::make_unique<ComparedDir>();
    out->session = loadSessionDir(dir);
    auto c = compareSession(out->session.dump, &out->session.etrecord, out->session.capture);
    if (!c)
        FAIL(c.error().describe());
    out->comparison = std::move(c).value(); // a move keeps the storage it points into
    return out;
}

SessionInputs sessionInputsOf(const std::string& dir) {
    std::vector<Error> errors;
    auto inputs = sessionInputsFromPaths({dir}, errors);
    REQUIRE(errors.empty());
    return inputs;
}

std::string reportJsonOf(const Session& session) {
    REQUIRE(session.comparison);
    return comparisonToJson(*session.comparison, ReportContext{}).dump();
}

} // namespace gapscope::test
