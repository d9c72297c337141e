// Sessions: files sorted by content, the debug buffer found beside the ETDump,
// missing parts and unreadable files reported instead of failing.

#include "core/compare/metric_catalog.h"
#include "core/session/session.h"
#include "core/session/session_document.h"
#include "executorch_parity.h"
#include "session_builder.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace gapscope;
using namespace gapscope::test;

TEST_CASE("file kinds come from content, not names", "[session]") {
    const auto kind = [](const std::string& path) {
        const auto b = readBytes(path);
        return detectFileKind({b.data(), b.size()});
    };
    const std::string demo = GAPSCOPE_DEMO_DIR;
    CHECK(kind(demo + "/run.etdp") == FileKind::EtDump);
    CHECK(kind(demo + "/etrecord.bin") == FileKind::EtRecord);
    CHECK(kind(demo + "/capture.gscap.safetensors") == FileKind::Capture);
    CHECK(kind(demo + "/run.debug.bin") == FileKind::Raw);
    CHECK(kind(fixturePath("executorch-samples/etrecord.bin")) == FileKind::EtRecord);
    CHECK(detectFileKind({nullptr, 0}) == FileKind::Raw);
}

TEST_CASE("a saved session is a file kind of its own, told by its key in the first MiB", "[session]") {
    const auto kind = [](const std::string& text) {
        return detectFileKind({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    };
    SessionDocument d;
    d.files = {"/x/run.etdp"};
    CHECK(kind(sessionDocumentText(d)) == FileKind::SavedSession);
    // A broken one is still a session file (readSessionDocument then says what is wrong).
    CHECK(kind("{\"gapscope_session\": \"two\"") == FileKind::SavedSession);
    // One too large to read: claimed by its key, then refused as too large.
    CHECK(kind("{\"gapscope_session\": 1, \"files\": [\"" + std::string(kMaxSessionDocument, 'a') + "\"]}") ==
          FileKind::SavedSession);
    // A report or a log is text; the key only past the first MiB does not count.
    CHECK(kind("{\"schema_version\": 3, \"rows\": []}") == FileKind::Text);
    CHECK(kind(std::string(kMaxSessionDocument, ' ') + "\"gapscope_session\"") == FileKind::Text);
    CHECK(std::string(fileKindName(FileKind::SavedSession)) == "saved session");
}

TEST_CASE("the demo folder loads as one compared session", "[session]") {
    std::vector<Error> errors;
    const auto inputs = sessionInputsFromPaths({GAPSCOPE_DEMO_DIR}, errors);
    CHECK(errors.empty());
    const auto s = loadSession(inputs);
    CHECK(s->errors.empty());
    CHECK(s->missing.empty());
    REQUIRE(s->debug_buffer_file);
    CHECK_THAT(s->debug_buffer_file->path(), Catch::EndsWith("run.debug.bin"));
    CHECK_THAT(s->capture_file->path(), Catch::EndsWith("capture.gscap.safetensors"));
    REQUIRE(s->comparison);
    CHECK(s->comparison->rows.size() == 4);
    CHECK(s->introducers.size() == 4);
}

TEST_CASE("a partial session says what is missing and a bad file is an error, not a failure", "[session]") {
    const std::string demo = GAPSCOPE_DEMO_DIR;
    std::vector<Error> errors;
    auto s = loadSession(
        sessionInputsFromPaths({demo + "/run.etdp", fixturePath("etdump/c_mixed_dtypes.etdp")}, errors));
    CHECK(s->dump);
    CHECK_FALSE(s->comparison);
    // run.debug.bin lies beside run.etdp: it came along.
    REQUIRE(s->debug_buffer_file);
    CHECK(s->debug_buffer_file->path() == demo + "/run.debug.bin");
    CHECK(s->missing == std::vector<InputRole>{InputRole::EtRecord, InputRole::Capture});

    const auto bytes = readBytes(demo + "/run.etdp");
    SessionInputs alone; // nothing beside it
    alone.files.push_back(MappedFile::fromBytes("run.etdp", bytes.data(), bytes.size()));
    s = loadSession(alone);
    CHECK(s->missing ==
          std::vector<InputRole>{InputRole::DebugBuffer, InputRole::EtRecord, InputRole::Capture});

    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + 100);
    SessionInputs broken;
    broken.files.push_back(MappedFile::fromBytes("broken.etdp", cut.data(), cut.size()));
    s = loadSession(broken);
    REQUIRE(s->errors.size() == 1);
    CHECK_THAT(s->errors[0].describe(), Catch::StartsWith("broken.etdp: truncated"));

    auto missing = sessionInputsFromPaths({"/nonexistent/x.etdp"}, errors);
    CHECK(missing.files.empty());
    CHECK_THAT(errors.back().describe(), Catch::Contains("/nonexistent/x.etdp"));
}

TEST_CASE("a load reports progress and can be cancelled", "[session]") {
    std::vector<Error> errors;
    const auto inputs = sessionInputsFromPaths({GAPSCOPE_DEMO_DIR}, errors);
    SessionOptions options;
    std::uint64_t lastTotal = 0;
    options.progress = [&](std::uint64_t, std::uint64_t total) {
        lastTotal = total;
        return true;
    };
    CHECK(loadSession(inputs, options)->comparison);
    CHECK(lastTotal > 0);
    options.progress = [](std::uint64_t, std::uint64_t) { return false; };
    const auto cancelled = loadSession(inputs, options);
    CHECK_FALSE(cancelled->comparison);
    REQUIRE(cancelled->errors.size() == 1);
    CHECK(cancelled->errors[0].code == ErrorCode::Cancelled);
}

TEST_CASE("of two captures, the one of an ETRecord graph wins whatever the order", "[session]") {
    const std::string demo = GAPSCOPE_DEMO_DIR;
    for (const auto& order :
         {std::vector<std::string>{"capture_float.gscap.safetensors", "capture.gscap.safetensors"},
          std::vector<std::string>{"capture.gscap.safetensors", "capture_float.gscap.safetensors"}}) {
        std::vector<Error> errors;
        const auto files =
            sortSessionFiles(sessionInputsFromPaths({demo + "/" + order[0], demo + "/" + order[1]}, errors));
        REQUIRE(files.capture);
        CHECK_THAT(files.capture->path(), Catch::EndsWith("/capture.gscap.safetensors"));
    }
}

TEST_CASE("a __debugID_ session needs no ETRecord and a QNN '@' session does", "[session][qnn]") {
    const auto load = [](const std::string& first, const std::string& second) {
        SessionBuilder b;
        b.debug(0, b.tensor({1, 2}, {2}), -1, first);
        b.debug(0, b.tensor({0, 2}, {2}), -1, second);
        b.record({3}, {"conv2d"}, {{{1, 2}, {2}}});
        b.record({4}, {"relu"}, {{{0, 3}, {2}}});
        b.dump();
        b.capture();
        SessionInputs in;
        for (const auto& [name, bytes] :
             {std::pair<std::string, const std::vector<std::uint8_t>*>{"run.etdp", &b.dumpBytes()},
              {"run.debug.bin", &b.debugBufferBytes()},
              {"capture.gscap.safetensors", &b.captureBytes()}})
            in.files.push_back(MappedFile::fromBytes(name, bytes->data(), bytes->size()));
        return loadSession(in);
    };
    const auto own = load("aten_convolution_default__debugID_3", "relu__debugID_4");
    CHECK(own->missing.empty());
    REQUIRE(own->comparison);
    CHECK(own->comparison->rows.size() == 2);
    const auto mapped = load("aten_convolution_default@0", "aten_relu_default@0");
    CHECK(mapped->missing == std::vector<InputRole>{InputRole::EtRecord});
    REQUIRE(mapped->comparison);
    CHECK(mapped->comparison->rows.empty());
}

// The capture records the SHA-256 of the ETRecord it was made from; compared
// with another ETRecord, the session warns (CLI and app read the same warning)
// and the report reuses the digest instead of hashing the ETRecord twice.
TEST_CASE("a capture made from another ETRecord is warned about", "[session][provenance]") {
    using namespace gapscope;
    const std::string mha = GAPSCOPE_TEST_DATA_DIR "/portable_mha/";
    const std::string other = GAPSCOPE_TEST_DATA_DIR "/portable_recurrent/etrecord.bin";
    for (const auto& etrecord : {mha + "etrecord.bin", other}) {
        INFO(etrecord);
        std::vector<Error> errors;
        const auto s = loadSession(sessionInputsFromPaths(
            {mha + "run.etdp", mha + "run.debug.bin", etrecord, mha + "capture.gscap.safetensors"}, errors));
        REQUIRE(errors.empty());
        REQUIRE(s->comparison);
        REQUIRE(s->capture->etrecord_sha256);
        REQUIRE(s->etrecord_sha256);
        bool warned = false;
        for (const auto& w : s->comparison->warnings)
            warned = warned || w.find("the capture was made from another ETRecord") != std::string::npos;
        CHECK(warned == (etrecord == other));
        CHECK((*s->etrecord_sha256 == *s->capture->etrecord_sha256) == (etrecord != other));
        const auto ctx = reportContextFor(*s);
        for (const auto& input : ctx.inputs)
            if (input.role == InputRole::EtRecord)
                CHECK(input.sha256 == *s->etrecord_sha256);
    }
}

// A capture that also names its ETRecord's table of contents (the exporter's
// etrecord_entries_sha256) is checked by it: no hash of the whole ETRecord, and
// the file's SHA-256 is then not looked at. A report still hashes the file.
TEST_CASE("a capture naming its ETRecord's entries is checked without hashing the ETRecord",
          "[session][provenance]") {
    using namespace gapscope;
    const std::string mha = GAPSCOPE_TEST_DATA_DIR "/portable_mha/";
    const std::string other = GAPSCOPE_TEST_DATA_DIR "/portable_recurrent/etrecord.bin";
    auto open = [&](const std::string& etrecord) {
        std::vector<Error> errors;
        auto s = loadSession(sessionInputsFromPaths(
            {mha + "run.etdp", mha + "run.debug.bin", etrecord, mha + "capture.gscap.safetensors"}, errors));
        REQUIRE(errors.empty());
        REQUIRE(s->comparison);
        return s;
    };
    const auto own = open(mha + "etrecord.bin");
    const auto another = open(other);
    const std::string entries = own->etrecord->entries_sha256;
    REQUIRE(entries.size() == 64);
    CHECK(another->etrecord->entries_sha256 != entries);

    auto withEntries = [](Session s, std::optional<std::string> digest, std::optional<std::string> file) {
        auto capture = std::make_shared<AotCapture>(*s.capture);
        capture->etrecord_entries_sha256 = std::move(digest);
        capture->etrecord_sha256 = std::move(file);
        s.capture = capture;
        return s;
    };
    const auto fileDigest = own->capture->etrecord_sha256;
    REQUIRE(fileDigest);
    // Its own ETRecord: no warning, nothing hashed.
    auto p = checkCaptureProvenance(withEntries(*own, entries, fileDigest));
    CHECK_FALSE(p.warning);
    CHECK_FALSE(p.etrecord_sha256);
    // Another ETRecord: warned, by the entries' digest.
    p = checkCaptureProvenance(withEntries(*another, entries, fileDigest));
    REQUIRE(p.warning);
    CHECK(p.warning->find("the capture was made from another ETRecord (entries SHA-256 " +
                          entries.substr(0, 12)) == 0);
    CHECK_FALSE(p.etrecord_sha256);
    // The entries decide, not the file's digest beside them.
    p = checkCaptureProvenance(withEntries(*own, std::string(64, '0'), fileDigest));
    CHECK(p.warning);
    // Without the entries' digest, the file is hashed as before.
    p = checkCaptureProvenance(withEntries(*own, std::nullopt, fileDigest));
    CHECK_FALSE(p.warning);
    CHECK(p.etrecord_sha256 == fileDigest);
    // Through the opener's workspace, once for every run and capture of the
    // files (the session holds no workspace, issue 57).
    Workspace workspace;
    p = checkCaptureProvenance(withEntries(*own, std::nullopt, fileDigest), nullptr, &workspace);
    CHECK(p.etrecord_sha256 == fileDigest);
    CHECK(workspace.reads() == 1);
    p = checkCaptureProvenance(withEntries(*own, std::nullopt, fileDigest), nullptr, &workspace);
    CHECK(p.etrecord_sha256 == fileDigest);
    CHECK(workspace.reads() == 1);

    // The report hashes the ETRecord itself when the check did not.
    const auto matched = withEntries(*own, entries, fileDigest);
    const auto ctx = reportContextFor(matched);
    bool hashed = false;
    for (const auto& input : ctx.inputs)
        if (input.role == InputRole::EtRecord) {
            CHECK(input.sha256 == *fileDigest);
            hashed = true;
        }
    CHECK(hashed);
}

#include "core/compare/findings.h"

// "Next past the threshold" (the app's F-keys) walks the rows that cross it in
// execution order, wrapping, and starts where the first divergence is.
TEST_CASE("stepping past the threshold follows execution order and wraps", "[session][findings]") {
    using namespace gapscope;
    std::vector<Error> errors;
    const auto s = loadSession(sessionInputsFromPaths({GAPSCOPE_QNN_DEMO_DIR}, errors));
    REQUIRE(s->comparison);
    const auto& c = *s->comparison;
    const MetricThreshold threshold{Metric::Snr, 45.0}; // 8a8w: some rows above, some below
    std::vector<std::size_t> crossing;
    for (const auto i : executionOrder(c))
        if (crossesThreshold(c.rows[i], threshold))
            crossing.push_back(i);
    REQUIRE(crossing.size() >= 2);
    REQUIRE(crossing.size() < c.rows.size());
    const auto first = firstDivergence(c, threshold);
    REQUIRE(first);
    CHECK(crossing.front() == first->row);
    // From the first row in execution order (not itself past the threshold, or it
    // would be skipped as the starting point) forward reaches the crossings in order.
    std::optional<std::size_t> at = crossing.front();
    for (std::size_t k = 1; k < crossing.size(); ++k) {
        at = stepPastThreshold(c, at, +1, threshold);
        REQUIRE(at);
        CHECK(*at == crossing[k]);
    }
    CHECK(stepPastThreshold(c, at, +1, threshold) == crossing.front()); // wraps
    CHECK(stepPastThreshold(c, crossing.front(), -1, threshold) == crossing.back());
    CHECK_FALSE(stepPastThreshold(c, std::nullopt, +1, {Metric::Snr, -1000.0})); // nothing crosses
}

#include "core/report/compare_report.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

// One version: CMake's project(VERSION) reaches the core, the CLI and the app
// through gapscopeVersion(); the exporter, a Python package of its own, states
// it in __init__.py and must agree.
TEST_CASE("the exporter's version is Gapscope's", "[version]") {
    std::ifstream in(GAPSCOPE_EXPORTER_INIT);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    std::smatch m;
    const std::string source = text.str();
    REQUIRE(std::regex_search(source, m, std::regex("__version__ = \"([^\"]+)\"")));
    CHECK(m[1].str() == gapscope::gapscopeVersion());
    CHECK(gapscope::gapscopeVersion().find('.') != std::string::npos);
    CHECK(gapscope::exporterVersion() == m[1].str());
}

// --version names what a bug report needs: the build, the ExecuTorch release and
// formats it reads, the exporter and Qt, one per line.
TEST_CASE("versionText names every component", "[version]") {
    const std::string cli = gapscope::versionText("gapscope-cli", "");
    CHECK(cli.rfind("gapscope-cli " + gapscope::gapscopeVersion() + "\n", 0) == 0);
    CHECK(cli.find("ExecuTorch:     " + gapscope::executorchVersion() + " (ETDump schema version 0") !=
          std::string::npos);
    CHECK(cli.find("AOT capture:    format version " + std::to_string(gapscope::AotCapture::kVersion)) !=
          std::string::npos);
    CHECK(cli.find("Exporter:       gapscope-capture " + gapscope::gapscopeVersion()) != std::string::npos);
    CHECK(cli.find("Qt:") != std::string::npos);
    CHECK(std::count(cli.begin(), cli.end(), '\n') == 5);
    if (!gapscope::qtBuildVersion().empty()) {
        CHECK(cli.find("gapscope-cli does not use Qt") != std::string::npos);
        const std::string app = gapscope::versionText("gapscope", "6.9.9");
        CHECK(app.find("Qt:             6.9.9 (built against " + gapscope::qtBuildVersion() + ")") !=
              std::string::npos);
    }
}

// The CLI hashes the other inputs beside the comparison and takes the ETRecord's
// digest from the provenance check: the list is still in report order, and the
// ETRecord is hashed only when the check did not hash it.
TEST_CASE("withEtRecordDigest puts the ETRecord in its place, hashed once", "[version][report]") {
    const std::string abc = "abc";
    gapscope::Session s;
    s.etrecord_file =
        gapscope::MappedFile::fromBytes("etrecord.bin", reinterpret_cast<const std::uint8_t*>(abc.data()), 3);
    const std::vector<gapscope::InputProvenance> others{{InputRole::EtDump, "run.etdp", 1, "d1"},
                                                        {InputRole::Capture, "c.safetensors", 2, "d2"}};
    auto inputs = gapscope::withEtRecordDigest(others, s);
    REQUIRE(inputs.size() == 3);
    CHECK(inputs[0].role == InputRole::EtDump);
    CHECK(inputs[1].role == InputRole::EtRecord);
    CHECK(inputs[1].bytes == 3);
    CHECK(inputs[1].sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(inputs[2].role == InputRole::Capture);
    s.etrecord_sha256 = "from-the-provenance-check";
    CHECK(gapscope::withEtRecordDigest(others, s)[1].sha256 == "from-the-provenance-check");
    s.etrecord_file.reset();
    CHECK(gapscope::withEtRecordDigest(others, s).size() == 2);
}

namespace {

// A copy of tests/data/executorch_layout in a fresh temporary folder, with edits.
std::filesystem::path layoutCopy(const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("gapscope-layout-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(std::string(GAPSCOPE_TEST_DATA_DIR) + "/executorch_layout"))
        fs::copy_file(e.path(), dir / e.path().filename());
    return dir;
}

std::unique_ptr<Session> openFolder(const std::vector<std::string>& paths,
                                    const SessionOptions& options = {}) {
    std::vector<Error> errors;
    const auto inputs = sessionInputsFromPaths(paths, errors);
    for (const auto& e : errors)
        FAIL(e.describe());
    return loadSession(inputs, options);
}

} // namespace

TEST_CASE("ExecuTorch's own files are recognised by content: the program, torch.save inputs, text",
          "[session][layout]") {
    const auto kind = [](const std::string& path) {
        const auto b = readBytes(path);
        return detectFileKind({b.data(), b.size()});
    };
    const std::string layout = std::string(GAPSCOPE_TEST_DATA_DIR) + "/executorch_layout";
    CHECK(kind(layout + "/model.pte") == FileKind::Program);
    CHECK(kind(std::string(GAPSCOPE_DEMO_DIR) + "/model.pte") == FileKind::Program);
    CHECK(kind(layout + "/inputs.pt") == FileKind::TorchArchive);
    CHECK(kind(layout + "/etrecord.bin") == FileKind::EtRecord);
    CHECK(kind(layout + "/etdump.etdp") == FileKind::EtDump);
    CHECK(kind(layout + "/executorch_gap_mse.json") == FileKind::Text);
    CHECK(kind(layout + "/README.md") == FileKind::Text);
    CHECK(kind(layout + "/debug_output.bin") == FileKind::Raw);
    // A PNG beside the session (an exported chart) is no debug buffer either.
    const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
    CHECK(detectFileKind({reinterpret_cast<const std::uint8_t*>(png.data()), png.size()}) == FileKind::Other);
}

TEST_CASE("a folder in ExecuTorch's layout opens with either debug-buffer name and a .pte beside it",
          "[session][layout]") {
    namespace fs = std::filesystem;
    const std::string bufferName = GENERATE(std::string("debug_output.bin"), std::string("debug_buffer.bin"));
    INFO(bufferName);
    const auto dir = layoutCopy(bufferName);
    if (bufferName != "debug_output.bin")
        fs::rename(dir / "debug_output.bin", dir / bufferName);
    const auto s = openFolder({dir.string()});
    for (const auto& e : s->errors)
        FAIL(e.describe());
    CHECK(s->missing.empty());
    REQUIRE(s->debug_buffer_file);
    CHECK(fs::path(s->debug_buffer_file->path()).filename() == bufferName);
    CHECK(s->debug_buffer_candidates.empty());
    REQUIRE(s->comparison);
    // Every metric is there, and ExecuTorch's numbers are the Inspector's on these files.
    for (const auto& row : s->comparison->rows)
        if (row.status == RowStatus::Ok)
            CHECK(rowMetric(row, Metric::Mse).has_value());
    checkExecuTorchParity(*s->comparison, std::string(GAPSCOPE_TEST_DATA_DIR) + "/executorch_layout",
                          {"mse"});

    // The ETDump opened alone brings its debug buffer along under ExecuTorch's name.
    std::vector<Error> errors;
    const auto alone = sessionInputsFromPaths({(dir / "etdump.etdp").string()}, errors);
    CHECK(errors.empty());
    REQUIRE(alone.files.size() == 2);
    CHECK(fs::path(alone.files[1]->path()).filename() == bufferName);
    fs::remove_all(dir);
}

TEST_CASE("several debug-buffer candidates: none is guessed, a named file or a pick fills the slot",
          "[session][layout]") {
    namespace fs = std::filesystem;
    const auto dir = layoutCopy("candidates");
    fs::rename(dir / "debug_output.bin", dir / "buffer_a.bin");
    {
        std::ofstream other(dir / "buffer_b.bin", std::ios::binary);
        const char bytes[] = {'\x01', '\x00', '\x80', '\x3f', '\xff', '\x00', '\x00', '\x00'};
        other.write(bytes, sizeof bytes);
    }
    const auto a = (dir / "buffer_a.bin").string(), b = (dir / "buffer_b.bin").string();

    const auto undecided = openFolder({dir.string()});
    CHECK(!undecided->debug_buffer_file);
    CHECK(undecided->missing == std::vector<InputRole>{InputRole::DebugBuffer});
    CHECK(undecided->debug_buffer_candidates == std::vector<std::string>{a, b});

    // Named one by one beside its folder (`gapscope DIR DIR/buffer_a.bin`, a drop, File → Open).
    const auto named = openFolder({dir.string(), a});
    REQUIRE(named->debug_buffer_file);
    CHECK(named->debug_buffer_file->path() == a);
    CHECK(named->missing.empty());
    REQUIRE(named->comparison);
    checkExecuTorchParity(*named->comparison, std::string(GAPSCOPE_TEST_DATA_DIR) + "/executorch_layout",
                          {"mse"});

    // Picked (the banner's buttons, the CLI's --debug-buffer): filled whatever the rules say.
    SessionOptions pick;
    pick.debug_buffer = b;
    const auto picked = openFolder({dir.string(), a}, pick);
    REQUIRE(picked->debug_buffer_file);
    CHECK(picked->debug_buffer_file->path() == b);
    fs::remove_all(dir);
}

#include "core/session/capture_advice.h"

TEST_CASE("a session without a capture says which command makes one for its kind", "[session]") {
    const auto loadWithout = [](const std::string& dir) {
        std::vector<Error> errors;
        const auto inputs = sessionInputsFromPaths(
            {dir + "/run.etdp", dir + "/run.debug.bin", dir + "/etrecord.bin"}, errors);
        REQUIRE(errors.empty());
        return loadSessionFiles(sortSessionFiles(inputs));
    };
    const std::string demo = GAPSCOPE_DEMO_DIR;
    const auto xnnpack = captureAdvice(*loadWithout(demo));
    REQUIRE(xnnpack);
    CHECK_THAT(*xnnpack, Catch::Contains("gapscope-capture from-etrecord '" + demo + "/etrecord.bin'"));
    CHECK_THAT(*xnnpack, Catch::Contains("-o '" + demo + "/capture.gscap.safetensors'"));
    const auto qnn = captureAdvice(*loadWithout(GAPSCOPE_QNN_DEMO_DIR));
    REQUIRE(qnn);
    CHECK_THAT(*qnn, Catch::Contains(
                         "QNN programs are captured while QNN's intermediate debugger is alive, in "
                         "the script that lowers and runs the model: from gapscope_capture.capture "
                         "import capture_from_qnn_debugger; capture_from_qnn_debugger(debugger).write("));
    CHECK_THAT(*qnn, !Catch::Contains("from-etrecord"));
    // With a capture there is nothing to advise.
    std::vector<Error> errors;
    CHECK_FALSE(captureAdvice(*loadSessionFiles(sortSessionFiles(sessionInputsFromPaths({demo}, errors)))));
}

#include "zip_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

namespace {

// A copy of a demo folder whose capture's safetensors header (and the capture
// document in it) is edited: real files, one thing wrong.
// `editData` may change the tensors' bytes (append one; the header says where).
std::string
demoWithEditedCapture(const std::string& demo, const std::string& capture, const std::string& name,
                      const std::function<void(nlohmann::json& header, nlohmann::json& doc)>& edit,
                      const std::function<void(nlohmann::json& header, std::string& data)>& editData = {}) {
    namespace fs = std::filesystem;
    const std::string dir = tempPath(name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"run.etdp", "run.debug.bin", "etrecord.bin"})
        fs::copy_file(demo + "/" + f, dir + "/" + f);
    std::ifstream in(demo + "/" + capture, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    auto header = nlohmann::json::parse(bytes.substr(8, n));
    auto doc = nlohmann::json::parse(header["__metadata__"]["gapscope.aot_capture"].get<std::string>());
    edit(header, doc);
    std::string data = bytes.substr(8 + n);
    if (editData)
        editData(header, data);
    header["__metadata__"]["gapscope.aot_capture"] = doc.dump();
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    const std::uint64_t length = text.size();
    std::ofstream out(dir + "/capture.gscap.safetensors", std::ios::binary);
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << text << data;
    return dir;
}

std::unique_ptr<Session> loadDir(const std::string& dir) {
    std::vector<Error> errors;
    auto session = loadSessionFiles(sortSessionFiles(sessionInputsFromPaths({dir}, errors)));
    REQUIRE(errors.empty());
    REQUIRE(session->errors.empty());
    REQUIRE(session->comparison);
    return session;
}

} // namespace

TEST_CASE("quantisation parameters the device's codes cannot hold make invalid rows", "[session][quant]") {
    // The QNN demo's uint8 tensors read with parameters of 0..65535 (valid for
    // int32, as QNN's 16-bit activations are recorded): no ok row dequantises them.
    const auto dir = demoWithEditedCapture(GAPSCOPE_QNN_DEMO_DIR, "capture.gscap.safetensors", "quant-wide",
                                           [](nlohmann::json&, nlohmann::json& doc) {
                                               for (auto& r : doc["records"])
                                                   if (r.contains("quantization"))
                                                       for (auto& q : r["quantization"])
                                                           if (q.is_object())
                                                               q["dtype"] = "int32", q["qmax"] = 65535;
                                           });
    const auto session = loadDir(dir);
    std::size_t refused = 0;
    for (const auto& row : session->comparison->rows) {
        for (const auto& e : row.elementPlans())
            CHECK_FALSE((e.status == RowStatus::Ok && e.dequantized));
        refused +=
            row.status == RowStatus::Invalid &&
            row.reason.find("(int32, 0..65535) do not fit the runtime tensor's uint8") != std::string::npos;
    }
    CHECK(refused > 0);
    // Unedited, the same rows are dequantised and ok (the check refuses only what does not fit).
    const auto real = loadDir(GAPSCOPE_QNN_DEMO_DIR);
    std::size_t dequantized = 0;
    for (const auto& row : real->comparison->rows)
        for (const auto& e : row.elementPlans())
            dequantized += e.status == RowStatus::Ok && e.dequantized;
    CHECK(dequantized >= refused);
}

TEST_CASE("a reference of uint8 codes against dequantised device codes is refused, not measured",
          "[session][quant]") {
    // Issue 55, class 12: the QNN demo's references of every per-tensor uint8
    // output stored as the codes of its own parameters (what a QNN reference
    // kept quantised holds). Read raw against the dequantised device tensor it
    // gave max-abs 253 and "ok"; with the float reference it reads ~38 dB.
    std::set<std::string> coded;
    const auto dir = demoWithEditedCapture(
        GAPSCOPE_QNN_DEMO_DIR, "capture.gscap.safetensors", "quant-reference-codes",
        [&](nlohmann::json&, nlohmann::json& doc) {
            for (auto& r : doc["records"])
                if (r.contains("quantization") && r["quantization"].is_array() &&
                    r["quantization"].size() == 1 && r["quantization"][0].is_object() &&
                    r["quantization"][0]["dtype"] == "uint8" &&
                    r["quantization"][0]["scheme"] == "per_tensor" && r["outputs"][0]["kind"] == "tensor")
                    coded.insert(r["outputs"][0]["name"].get<std::string>());
        },
        [&](nlohmann::json& header, std::string& data) {
            const auto doc =
                nlohmann::json::parse(header["__metadata__"]["gapscope.aot_capture"].get<std::string>());
            for (const auto& r : doc["records"]) {
                if (r["outputs"].empty() || r["outputs"][0]["kind"] != "tensor" ||
                    !coded.count(r["outputs"][0]["name"].get<std::string>()))
                    continue;
                const auto& q = r["quantization"][0];
                auto& entry = header[r["outputs"][0]["name"].get<std::string>()];
                REQUIRE(entry["dtype"] == "F32");
                const std::size_t begin = entry["data_offsets"][0], end = entry["data_offsets"][1];
                const double scale = q["scale"];
                const double zero = q["zero_point"];
                std::string codes;
                for (std::size_t at = begin; at < end; at += 4) {
                    float x = 0;
                    std::memcpy(&x, data.data() + at, 4);
                    codes.push_back(static_cast<char>(
                        static_cast<std::uint8_t>(std::clamp(std::nearbyint(x / scale) + zero, 0.0, 255.0))));
                }
                entry["dtype"] = "U8";
                entry["data_offsets"] = {data.size(), data.size() + codes.size()};
                data += codes;
            }
        });
    REQUIRE_FALSE(coded.empty());
    const auto session = loadDir(dir);
    std::size_t refused = 0;
    for (const auto& row : session->comparison->rows)
        for (const auto& e : row.elementPlans()) {
            if (e.dtype.rfind("uint8 vs uint8", 0) != 0)
                continue;
            CHECK(e.status == RowStatus::Invalid);
            CHECK_THAT(e.reason, Catch::Contains("the reference holds uint8 integer codes and the device's "
                                                 "uint8 codes are dequantised"));
            ++refused;
        }
    CHECK(refused > 0);
}

TEST_CASE("a reference of integer codes against float device values is no gap", "[session][quant]") {
    // layer_norm's float reference relabelled int32 (the same four bytes an element).
    const std::string demo = GAPSCOPE_DEMO_DIR;
    const auto dir = demoWithEditedCapture(
        demo, "capture_float.gscap.safetensors", "quant-codes",
        [](nlohmann::json& header, nlohmann::json&) { header["records/3/0"]["dtype"] = "I32"; });
    // The same with no quantisation recorded for it: integers, but not codes.
    const auto plain = demoWithEditedCapture(demo, "capture_float.gscap.safetensors", "int-values",
                                             [](nlohmann::json& header, nlohmann::json& doc) {
                                                 header["records/3/0"]["dtype"] = "I32";
                                                 for (auto& r : doc["records"])
                                                     r.erase("quantization");
                                             });
    const auto plainSession = loadDir(plain);
    for (const auto& row : plainSession->comparison->rows)
        if (row.id().aot_ops == std::vector<std::string>{"layer_norm"}) {
            CHECK(row.status == RowStatus::Invalid);
            CHECK_THAT(row.reason, Catch::Contains("integers (indices or counts: the capture records no "
                                                   "quantisation for this output)"));
        }
    const auto session = loadDir(dir);
    bool found = false;
    for (const auto& row : session->comparison->rows)
        if (row.id().aot_ops == std::vector<std::string>{"layer_norm"}) {
            found = true;
            CHECK(row.status == RowStatus::Invalid);
            CHECK_THAT(row.reason,
                       Catch::Contains("the reference holds int32 values and the device float32"));
            CHECK_THAT(row.reason, Catch::Contains("integer codes (a quantised reference)"));
        }
    CHECK(found);
}

#include "core/capture/safetensors_writer.h"

TEST_CASE("model inputs files beside a session are recognised, not warned about", "[session][files]") {
    // Issue 54: every inputs.stepK.safetensors (inputs/0, inputs/1, …: what
    // gapscope-capture --inputs reads) drew "not a Gapscope AOT capture".
    namespace fs = std::filesystem;
    const std::string dir = tempPath("inputs-beside");
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(GAPSCOPE_DEMO_DIR))
        fs::copy_file(entry.path(), dir + "/" + entry.path().filename().string());
    const auto write = [&](const std::string& name, const std::vector<std::string>& tensors) {
        SafetensorsWriter w;
        for (const auto& t : tensors)
            REQUIRE_FALSE(w.add(t, ScalarType::Long, {2}, std::vector<std::uint8_t>(16, 1)));
        REQUIRE_FALSE(w.write(dir + "/" + name));
    };
    write("inputs.step0.safetensors", {"inputs/0"});
    write("inputs.step1.safetensors", {"inputs/0", "inputs/1"});
    write("weights.safetensors", {"inputs/0", "lm_head.weight"}); // not only inputs: still said
    // Issue 56: named for the inputs, whatever its tensors are called (a user's "input_ids").
    write("inputs.safetensors", {"input_ids", "attention_mask"});
    std::vector<Error> errors;
    const auto files = sortSessionFiles(sessionInputsFromPaths({dir}, errors));
    REQUIRE(errors.empty());
    REQUIRE(files.unrecognized.size() == 1);
    CHECK_THAT(files.unrecognized.front().describe(), Catch::Contains("weights.safetensors"));
    CHECK_THAT(files.unrecognized.front().describe(), Catch::Contains("not a Gapscope AOT capture"));
    CHECK(files.capture);
}

TEST_CASE("a step capture that cannot serve is said, never dropped", "[session][files][steps]") {
    // Issue 55, class 2: a capture whose `step` the reader refuses was left out
    // without a word (execution 2 then compared with step 0's capture), and two
    // captures saying one step were picked from silently.
    namespace fs = std::filesystem;
    const std::string demo = GAPSCOPE_DEMO_DIR;
    const auto stepped = [&](const std::string& name, const nlohmann::json& step) {
        return demoWithEditedCapture(demo, "capture.gscap.safetensors", name,
                                     [&](nlohmann::json&, nlohmann::json& doc) { doc["step"] = step; });
    };
    const auto open = [](const std::string& dir, const std::string& capture = {}) {
        std::vector<Error> errors;
        SessionOptions options;
        options.capture = capture;
        auto session = loadSession(sessionInputsFromPaths({dir}, errors), options);
        REQUIRE(errors.empty());
        return session;
    };
    for (const auto& [bad, field] :
         std::vector<std::pair<nlohmann::json, std::string>>{{-1, "-1"}, {1.5, "1.5"}, {"2", "\"2\""}}) {
        INFO("step " << field);
        const auto dir = stepped("step-bad", bad);
        fs::rename(dir + "/capture.gscap.safetensors", dir + "/capture.forward.step-002.gscap.safetensors");
        fs::copy_file(demo + "/capture.gscap.safetensors", dir + "/capture.gscap.safetensors");
        const auto session = open(dir);
        REQUIRE_FALSE(session->errors.empty());
        const auto said = session->errors.front().describe();
        CHECK_THAT(said, Catch::Contains("capture.forward.step-002.gscap.safetensors"));
        CHECK_THAT(said, Catch::Contains("'step' must be an integer of 0 or more (field step)"));
        // Asked for by path, the good one compares; the bad one is a warning.
        const auto asked = open(dir, dir + "/capture.gscap.safetensors");
        REQUIRE(asked->comparison);
        CHECK(asked->errors.empty());
        CHECK(std::any_of(asked->comparison->warnings.begin(), asked->comparison->warnings.end(),
                          [](const std::string& w) { return w.find("step-002") != std::string::npos; }));
    }
    const auto dir = stepped("step-twice", 1);
    const auto other = stepped("step-twice-b", 1);
    fs::copy_file(other + "/capture.gscap.safetensors", dir + "/capture.b.gscap.safetensors");
    const auto session = open(dir);
    REQUIRE_FALSE(session->errors.empty());
    CHECK_THAT(session->errors.front().describe(),
               Catch::Contains("says step 1 of method 'forward', as ") &&
                   Catch::Contains("which one is that execution's is unknown"));
}

TEST_CASE("a capture whose digest matches but whose graph is another's is warned about",
          "[session][provenance]") {
    // Issue 55, class 11: the demo's capture keeps the ETRecord digests of the
    // demo's ETRecord, but its records name another program's ops (a digest is
    // a string a writer can copy). It was trusted; the graphs now disagree aloud.
    const auto dir = demoWithEditedCapture(GAPSCOPE_DEMO_DIR, "capture.gscap.safetensors", "forged-digest",
                                           [](nlohmann::json&, nlohmann::json& doc) {
                                               for (auto& r : doc["records"]) {
                                                   for (auto& op : r["ops"])
                                                       op = "other_" + op.get<std::string>();
                                                   r["stack_traces"] = nlohmann::json::object();
                                               }
                                           });
    const auto session = loadDir(dir);
    const auto& w = session->comparison->warnings;
    CHECK(std::any_of(w.begin(), w.end(), [](const std::string& s) {
        return s.find("the capture and the ETRecord disagree on the program") != std::string::npos &&
               s.find("is not a node of it") != std::string::npos;
    }));
    // The demo as it is says nothing of the kind.
    const auto real = loadDir(GAPSCOPE_DEMO_DIR);
    for (const auto& s : real->comparison->warnings)
        CHECK(s.find("disagree on the program") == std::string::npos);
}

TEST_CASE("a float16 program's ETDump names ExecuTorch's writer defect", "[session][half]") {
    // Issue 54: ExecuTorch's ETDumpGen cannot log float16 tensors and writes a
    // file no reader can trust (tests/data/portable_half/README.md).
    std::vector<Error> errors;
    const auto session = loadSessionFiles(
        sortSessionFiles(sessionInputsFromPaths({GAPSCOPE_TEST_DATA_DIR "/portable_half"}, errors)));
    REQUIRE(errors.empty());
    REQUIRE_FALSE(session->errors.empty());
    const auto said = session->errors.front().describe();
    CHECK_THAT(said, Catch::Contains("run.etdp: corrupt ETDump"));
    CHECK_THAT(said, Catch::Contains("ExecuTorch's ETDumpGen (1.5) cannot log"));
    CHECK_THAT(said, Catch::Contains("float16/bfloat16"));
    CHECK_FALSE(session->comparison);
    // The CLI and the headless app refuse it, in these words.
    CHECK(whySessionUnusable(*session) == said);
}
