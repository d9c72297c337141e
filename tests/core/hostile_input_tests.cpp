// Hostile inputs and outputs (issue 14): each case asserts its exact, located
// message. Special files are made in the test's temporary folder; no test
// writes to, or even opens for writing, a device node.

#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_file.h"
#include "core/capture/safetensors_writer.h"
#include "core/common/atomic_file.h"
#include "core/common/json_depth.h"
#include "core/common/mapped_file.h"
#include "core/common/zip_archive.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "core/metrics/gap_metrics.h"
#include "core/report/json_text.h"
#include "core/session/session.h"
#include "etdump_generated.h"
#include "zip_writer.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace gapscope;
using namespace gapscope::test;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// A fresh FIFO in the test folder (never a system one).
std::string makeFifo(const std::string& name) {
    const auto path = tempPath(name);
    std::remove(path.c_str());
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    return path;
}

Result<AotCapture> captureWithDocument(const std::string& document) {
    SafetensorsWriter w;
    const float values[] = {1, 2};
    std::vector<std::uint8_t> bytes(sizeof values);
    std::memcpy(bytes.data(), values, sizeof values);
    REQUIRE_FALSE(w.add("t", ScalarType::Float, {2}, std::move(bytes)));
    w.setMetadata(AotCapture::kMetadataKey, document);
    const auto raw = w.serialize();
    return readAotCapture(MappedFile::fromBytes("hostile.gscap.safetensors", raw.data(), raw.size()));
}

std::string documentWithRecords(const std::string& records, const std::string& version = "1") {
    return R"({"format":"gapscope.aot_capture","version":)" + version + R"(,"records":)" + records + "}";
}

const std::string kRecord = R"({"debug_handle":[1],"ops":["a"],"outputs":[{"kind":"tensor","name":"t"}]})";

void expectCaptureError(const std::string& document, const std::string& field, const std::string& text) {
    const auto r = captureWithDocument(document);
    REQUIRE_FALSE(r);
    CHECK(r.error().where.file == "hostile.gscap.safetensors");
    CHECK(r.error().where.field == field);
    CHECK_THAT(r.error().message, Catch::Contains(text));
}

} // namespace

TEST_CASE("special files are refused as inputs, without blocking or opening them", "[hostile][files]") {
    SECTION("a FIFO (open() would wait for a writer forever)") {
        const auto fifo = makeFifo("hostile.fifo");
        const auto r = MappedFile::open(fifo);
        REQUIRE_FALSE(r);
        CHECK(r.error().where.file == fifo);
        CHECK(r.error().message == "is a FIFO (named pipe), not a regular file: not opened");
    }
    SECTION("a directory") {
        const auto dir = tempPath("hostile-dir");
        std::filesystem::create_directories(dir);
        const auto r = MappedFile::open(dir);
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "is a directory, not a file");
    }
    SECTION("a character device, looked at with stat only") {
        const auto r = MappedFile::open("/dev/null");
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "is a character device, not a regular file: not opened");
    }
    SECTION("a missing file") {
        const auto r = MappedFile::open(tempPath("no-such-file.etdp"));
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::StartsWith("cannot open for reading: No such file"));
    }
}

TEST_CASE("outputs never replace special files or inputs", "[hostile][outputs]") {
    SECTION("a FIFO stays a FIFO") {
        const auto fifo = makeFifo("hostile-out.fifo");
        const auto err = writeFileAtomically(fifo, std::string_view("x"));
        REQUIRE(err);
        CHECK(err->message == "is a FIFO (named pipe), not a regular file: refusing to replace it");
        struct stat st {};
        REQUIRE(::lstat(fifo.c_str(), &st) == 0);
        CHECK(S_ISFIFO(st.st_mode));
    }
    SECTION("a directory") {
        const auto dir = tempPath("hostile-out-dir");
        std::filesystem::create_directories(dir);
        const auto err = writeFileAtomically(dir, std::string_view("x"));
        REQUIRE(err);
        CHECK(err->message == "is a directory, not a regular file: refusing to replace it");
    }
    SECTION("a symbolic link stays a link, its target untouched") {
        const auto target = tempPath("hostile-link-target.txt"), link = tempPath("hostile-link");
        spit(target, "target");
        std::remove(link.c_str());
        REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
        const auto err = writeFileAtomically(link, std::string_view("x"));
        REQUIRE(err);
        CHECK(err->message == "is a symbolic link, not a regular file: refusing to replace it");
        CHECK(slurp(target) == "target");
    }
    SECTION("an input, by its name or by a hard link to it") {
        const auto input = tempPath("hostile-input.etdp"), link = tempPath("hostile-input-link");
        spit(input, "input bytes");
        std::remove(link.c_str());
        REQUIRE(::link(input.c_str(), link.c_str()) == 0);
        const auto opened = MappedFile::open(input);
        REQUIRE(opened);
        // Only looked at, it is not an input yet...
        const auto unrelated = tempPath("hostile-unrelated.txt");
        spit(unrelated, "old");
        REQUIRE_FALSE(writeFileAtomically(unrelated, std::string_view("new")));
        opened.value()->protectFromOutputs();
        for (const auto& path : {input, link}) {
            const auto err = writeFileAtomically(path, std::string_view("report"));
            REQUIRE(err);
            CHECK(err->where.file == path);
            CHECK(err->message == "is one of the inputs: refusing to overwrite it; choose another name");
        }
        CHECK(slurp(input) == "input bytes");
    }
    SECTION("a new file on a deleted input's inode number is not that input") {
        // ext4 and others hand a freed inode number to the next file created: a
        // report written where an input of an earlier session was deleted must
        // not be refused as "one of the inputs" (the birth time tells them apart).
        const auto input = tempPath("hostile-reused-input.bin");
        spit(input, "input");
        struct stat before {};
        REQUIRE(::stat(input.c_str(), &before) == 0);
        MappedFile::open(input).value()->protectFromOutputs();
        std::remove(input.c_str());
        std::string reused;
        for (int k = 0; k < 64 && reused.empty(); ++k) {
            const auto candidate = tempPath("hostile-reused-" + std::to_string(k) + ".txt");
            spit(candidate, "later");
            struct stat st {};
            REQUIRE(::stat(candidate.c_str(), &st) == 0);
            if (st.st_ino == before.st_ino && st.st_dev == before.st_dev)
                reused = candidate;
        }
        if (reused.empty())
            WARN("the file system gave no freed inode number back in 64 files: nothing to check here");
        else
            CHECK_FALSE(writeFileAtomically(reused, std::string_view("report")));
    }
}

TEST_CASE("capture documents: nesting, numbers and types are located errors", "[hostile][capture]") {
    // Nesting: refused where the reader stands, never walked; a deep value the
    // reader passes over (an unknown key, a key read later) is walked to a bound.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    expectCaptureError(documentWithRecords(deep), "records[0]", "a record must be an object");
    expectCaptureError(R"({"extra":)" + deep +
                           R"(,"format":"gapscope.aot_capture","version":1,"records":[]})",
                       "gapscope.aot_capture", "too deep");
    expectCaptureError(R"({"records":)" + deep + R"(,"format":"gapscope.aot_capture","version":1})",
                       "records[0]", "a record must be an object");
    expectCaptureError(documentWithRecords("[" + kRecord + "]", "1e400"), "version",
                       "'version' must be an integer");
    // Never narrowed: 2^32 + 1 is not version 1.
    expectCaptureError(documentWithRecords("[" + kRecord + "]", "4294967297"), "version",
                       "capture format version 4294967297 is not supported");
    expectCaptureError(documentWithRecords("[" + kRecord + "]", "-1"), "version",
                       "capture format version -1 is not supported");
    expectCaptureError(documentWithRecords(R"([{"debug_handle":[18446744073709551615],"outputs":[]}])"),
                       "records[0].debug_handle", "positive integers");
    expectCaptureError(documentWithRecords(R"([{"debug_handle":["1"],"outputs":[]}])"),
                       "records[0].debug_handle", "positive integers");
    expectCaptureError(
        documentWithRecords(
            R"([{"debug_handle":[1],"ops":["a",7],"outputs":[{"kind":"tensor","name":"t"}]}])"),
        "records[0].ops[1]", "an op name must be a string");
    expectCaptureError(
        documentWithRecords(R"([{"debug_handle":[1],"ops":"a","outputs":[{"kind":"tensor","name":"t"}]}])"),
        "records[0].ops", "'ops' must be a list of op names");
    // Every field's type is checked where it stands.
    expectCaptureError(
        documentWithRecords(
            R"([{"debug_handle":[1],"sequence":"yes","outputs":[{"kind":"tensor","name":"t"}]}])"),
        "records[0].sequence", "'sequence' must be true or false");
}

TEST_CASE("ETRecord entries nested too deep are refused, not walked", "[hostile][etrecord]") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const auto path = tempPath("hostile-deep.etrecord.bin");
    writeZip(path, {{"ETRECORD_V0", ""}, {"debug_handle_map", "{\"forward\":" + deep + "}"}});
    const auto r = loadEtRecord(path);
    REQUIRE_FALSE(r);
    CHECK(r.error().where.file == path);
    CHECK(r.error().where.field == "debug_handle_map");
    CHECK_THAT(r.error().message, Catch::Contains("nests deeper than 512 levels"));
}

TEST_CASE("the depth scan skips brackets inside strings", "[hostile][json]") {
    CHECK_FALSE(jsonTooDeep(R"({"a":"[[[[[[[[[[","b":"\"[[[["})", 2));
    CHECK(jsonTooDeep("[[[", 2) == std::optional<std::size_t>(2));
    CHECK_FALSE(jsonTooDeep("[[]]", 2));
}

TEST_CASE("a tensor shorter than its elements is a problem, never a read past its bytes",
          "[hostile][metrics]") {
    const float one = 1;
    const Operand full =
        Operand::tensor(ScalarType::Float, {1}, {reinterpret_cast<const std::uint8_t*>(&one), 4}, 1);
    // Offset -1 with elements: the reader gives no bytes.
    const Operand empty = Operand::tensor(ScalarType::Float, {1000}, {nullptr, 0}, 1000);
    const auto r = computeGap(full, empty);
    CHECK_FALSE(r.metrics);
    CHECK(r.problem == "the runtime tensor holds 0 bytes, fewer than its 1000 elements need");
}

TEST_CASE("invalid UTF-8 in input strings is replaced in JSON, and said", "[hostile][json]") {
    nlohmann::ordered_json doc = {{"name", std::string("conv\xff\xfe")}, {"ok", "fine"}};
    const auto out = renderJson(doc);
    CHECK(out.replaced);
    CHECK_THAT(out.text, Catch::Contains("conv\xEF\xBF\xBD"));
    CHECK_NOTHROW(nlohmann::json::parse(out.text));
    CHECK_FALSE(renderJson(nlohmann::ordered_json{{"name", "conv"}}).replaced);
}

namespace {

std::string zipBytes(const std::vector<std::pair<std::string, std::string>>& entries, bool deflate = false) {
    const auto path = tempPath("hostile-build.zip");
    writeZip(path, entries, deflate);
    return slurp(path);
}

Result<std::shared_ptr<const ZipArchive>> openZip(const std::string& bytes,
                                                  std::optional<std::uint64_t> budget = std::nullopt) {
    return ZipArchive::open(MappedFile::fromBytes("hostile.zip",
                                                  reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                  bytes.size()),
                            budget);
}

void replaceAll(std::string& s, const std::string& from, const std::string& to) {
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("ZIP archives: CRC, size lies, bombs, duplicate names, unknown compression", "[hostile][zip]") {
    SECTION("a flipped byte fails the CRC check instead of reading as other data") {
        auto bytes = zipBytes({{"debug_handle_map", "{\"forward\": {\"1\": [7]}}"}});
        replaceAll(bytes, "[7]", "[9]");
        const auto zip = openZip(bytes);
        REQUIRE(zip);
        const auto r = zip.value()->read("debug_handle_map");
        REQUIRE_FALSE(r);
        CHECK(r.error().where.file == "hostile.zip");
        CHECK(r.error().where.field == "debug_handle_map");
        CHECK(r.error().message == "entry 'debug_handle_map' is corrupt: CRC error");
    }
    SECTION("entries expanding past the archive's budget are refused before they are inflated") {
        const auto bytes =
            zipBytes({{"a", std::string(600 << 10, '\0')}, {"b", std::string(600 << 10, '\0')}},
                     /*deflate=*/true);
        REQUIRE(bytes.size() < 20000); // a thousandfold
        const auto zip = openZip(bytes, 1 << 20);
        REQUIRE(zip);
        REQUIRE(zip.value()->read("a"));
        const auto r = zip.value()->read("b");
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::TooLarge);
        CHECK(r.error().where.field == "b");
        CHECK_THAT(r.error().message,
                   Catch::StartsWith("entry 'b' would expand to 614400 bytes; with the 614400 "
                                     "read before, over the archive's budget of 1048576 bytes"));
    }
    SECTION("the default budget: 32 times the archive, at least 256 MiB") {
        const auto zip = openZip(zipBytes({{"a", "x"}}));
        REQUIRE(zip);
        CHECK(zip.value()->totalBudget() == (256u << 20));
    }
    SECTION("two entries of one name") {
        auto bytes = zipBytes({{"ENTRY_ONE_X", "1"}, {"ENTRY_ONE_Y", "2"}});
        replaceAll(bytes, "ENTRY_ONE_Y", "ENTRY_ONE_X");
        const auto r = openZip(bytes);
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "not a valid ZIP archive: two entries are named 'ENTRY_ONE_X'");
    }
    SECTION("an entry compressed by a method the reader lacks is named") {
        auto bytes = zipBytes({{"exported_program", "{}"}});
        REQUIRE(bytes.compare(0, 4, "PK\x03\x04") == 0);
        bytes[8] = 6; // local header: compression method 6, "imploded"
        const auto central = bytes.find("PK\x01\x02");
        REQUIRE(central != std::string::npos);
        bytes[central + 10] = 6;
        const auto zip = openZip(bytes);
        const std::string message =
            zip ? zip.value()->read("exported_program").error().message : zip.error().message;
        CHECK_THAT(message, Catch::Contains("'exported_program'"));
        CHECK_THAT(message, Catch::Contains("ompression method"));
    }
}

TEST_CASE("64-bit values are never narrowed: 2^64 - 1 is not the handle -1", "[hostile][etrecord]") {
    const auto path = tempPath("hostile-handle.etrecord.bin");
    writeZip(path,
             {{"ETRECORD_V0", ""}, {"debug_handle_map", R"({"forward": {"0": [18446744073709551615]}})"}});
    const auto r = loadEtRecord(path);
    REQUIRE_FALSE(r);
    CHECK(r.error().where.file == path);
    CHECK_THAT(r.error().where.field, Catch::StartsWith("debug_handle_map"));
    CHECK_THAT(r.error().message, Catch::Contains("debug handles must be integers of at most 2^63 - 1"));
    expectCaptureError(
        documentWithRecords(
            R"([{"debug_handle":[1],"outputs":[{"kind":"int","value":18446744073709551615}]}])"),
        "records[0].outputs[0]", "an int value needs an integer 'value' of 64 bits");
}

TEST_CASE("ETDump events sharing one large string copy out a bounded amount", "[hostile][etdump]") {
    // One 48 KiB name which each of 2,000 events points at: a file of about
    // 100 KB that would unpack (and print as JSON) to 96 MiB and more.
    flatbuffers::FlatBufferBuilder b(1 << 20);
    const auto name = b.CreateString(std::string(48 << 10, 'n'));
    std::vector<flatbuffers::Offset<etdump_fb::Event>> events;
    for (int e = 0; e < 2000; ++e)
        events.push_back(
            etdump_fb::CreateEvent(b, 0, 0, etdump_fb::CreateDebugEvent(b, 0, e, 0, -1, 0, name)));
    std::vector<flatbuffers::Offset<etdump_fb::RunData>> runs{
        etdump_fb::CreateRunData(b, 0, 0, 0, b.CreateVector(events))};
    etdump_fb::FinishSizePrefixedETDumpBuffer(b, etdump_fb::CreateETDump(b, 0, b.CreateVector(runs)));
    const ByteSpan bytes{b.GetBufferPointer(), b.GetSize()};
    REQUIRE(bytes.size < 200000);
    const auto r = parseEtdump(bytes, {});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::TooLarge);
    CHECK(r.error().where.run == 0);
    // The event past 64 MiB of copies: 48 KiB names, and each event's own size.
    CHECK(r.error().where.event >= 1300);
    CHECK(r.error().where.event < 1366);
    CHECK_THAT(r.error().message, Catch::StartsWith("the events copy out more than 67108864 bytes"));
}

TEST_CASE("an ETDump that shares its tables among runs is read, not called corrupt", "[hostile][etdump]") {
    // Issue 55, class 9: a valid FlatBuffer may point many runs at one RunData
    // (and a run's events at one Event). The verifier visits each reference: at
    // one visit per 4 bytes of file, run 494 of such a dump was refused as
    // "lies outside the buffer", and a dump of 10^6 shared events too.
    flatbuffers::FlatBufferBuilder b(1 << 20);
    const auto event = etdump_fb::CreateEvent(
        b, etdump_fb::CreateProfileEvent(b, b.CreateString("native_call_add.out"), 0, 0, -1, 0, 0, 1, 2));
    const std::vector<flatbuffers::Offset<etdump_fb::Event>> events(1000, event);
    const auto run = etdump_fb::CreateRunData(b, b.CreateString("Execute"), -1, 0, b.CreateVector(events));
    const std::vector<flatbuffers::Offset<etdump_fb::RunData>> runs(200, run);
    etdump_fb::FinishSizePrefixedETDumpBuffer(b, etdump_fb::CreateETDump(b, 0, b.CreateVector(runs)));
    const ByteSpan bytes{b.GetBufferPointer(), b.GetSize()};
    REQUIRE(bytes.size < 20000); // 200,000 events' worth of visits in a few kilobytes
    const auto r = parseEtdump(bytes, {});
    INFO((r ? std::string() : r.error().describe()));
    REQUIRE(r);
    CHECK(r.value().runs.size() == 200);
    CHECK(r.value().runs[199].events.size() == 1000);
    // What they hold stays bounded: each event is charged to the copy budget,
    // so 1,000 runs of it (10^6 events) are refused with the reason, not held.
    flatbuffers::FlatBufferBuilder big(1 << 20);
    const auto bigEvent = etdump_fb::CreateEvent(
        big,
        etdump_fb::CreateProfileEvent(big, big.CreateString("native_call_add.out"), 0, 0, -1, 0, 0, 1, 2));
    const auto bigRun = etdump_fb::CreateRunData(big, big.CreateString("Execute"), -1, 0,
                                                 big.CreateVector(std::vector(1000, bigEvent)));
    etdump_fb::FinishSizePrefixedETDumpBuffer(
        big, etdump_fb::CreateETDump(big, 0, big.CreateVector(std::vector(1000, bigRun))));
    const auto refused = parseEtdump(ByteSpan{big.GetBufferPointer(), big.GetSize()}, {});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::TooLarge);
    CHECK_THAT(refused.error().message, Catch::Contains("its events share tables many times over"));
}

TEST_CASE("a file named like an input that is not one is named with its reader's error",
          "[hostile][session]") {
    const auto dir = tempPath("hostile-corrupt-session");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    for (const char* f : {"etrecord.bin", "capture.gscap.safetensors", "run.debug.bin"})
        std::filesystem::copy_file(std::string(GAPSCOPE_DEMO_DIR) + "/" + f, dir + "/" + f);
    auto etdump = slurp(std::string(GAPSCOPE_DEMO_DIR) + "/run.etdp");
    etdump.replace(4, 8, "XXXXYYYY"); // neither identifier position holds ED00
    spit(dir + "/run.etdp", etdump);
    spit(dir + "/other.safetensors", std::string(8, '\0'));
    std::vector<Error> errors;
    const auto files = sortSessionFiles(sessionInputsFromPaths({dir}, errors));
    REQUIRE(errors.empty());
    CHECK_FALSE(files.etdump);
    REQUIRE(files.unrecognized.size() == 2);
    CHECK(files.unrecognized[0].where.file == dir + "/other.safetensors");
    CHECK(files.unrecognized[1].where.file == dir + "/run.etdp");
    CHECK_THAT(files.unrecognized[1].message,
               Catch::StartsWith("not an ETDump: expected the identifier ED00"));
    const auto session = loadSessionFiles(files);
    REQUIRE(session->errors.size() >= 2);
    CHECK(session->errors[1].where.file == dir + "/run.etdp");
    CHECK(std::find(session->missing.begin(), session->missing.end(), InputRole::EtDump) !=
          session->missing.end());
}

TEST_CASE("a mapped input truncated on disk reads as zeros and says it changed, no SIGBUS",
          "[hostile][files]") {
    const auto path = tempPath("hostile-truncated.debug.bin");
    spit(path, std::string(256 << 10, '\x7f'));
    const auto file = MappedFile::open(path);
    REQUIRE(file);
    const ByteSpan bytes = file.value()->bytes();
    CHECK(bytes.data[1000] == 0x7f);
    CHECK_FALSE(file.value()->changedOnDisk());
    // A new device run writes over it: the file is cut to a page.
    std::filesystem::resize_file(path, 4096);
    volatile std::uint8_t past = 0;
    for (std::size_t at = 8192; at < bytes.size; at += 4096)
        past = static_cast<std::uint8_t>(past | bytes.data[at]); // SIGBUS without the guard
    CHECK(past == 0);
    CHECK(file.value()->changedOnDisk());
}

TEST_CASE("a mapped input rewritten on disk says it changed", "[hostile][files]") {
    const auto path = tempPath("hostile-rewritten.etdp");
    spit(path, "first run");
    const auto file = MappedFile::open(path);
    REQUIRE(file);
    CHECK_FALSE(file.value()->changedOnDisk());
    spit(path, "second run, longer");
    CHECK(file.value()->changedOnDisk());
}

#include "core/common/python_json.h"

#include <random>

namespace {

// The scans as they were written first, a character at a time: the fast ones
// (runs inside strings skipped or copied whole) must agree on any text.
std::optional<std::size_t> depthByCharacter(std::string_view text, std::size_t maxDepth) {
    std::size_t depth = 0;
    bool inString = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if ((c == '[' || c == '{') && ++depth > maxDepth)
            return i;
        else if ((c == ']' || c == '}') && depth > 0)
            --depth;
    }
    return std::nullopt;
}

std::string normalizedByCharacter(std::string_view text) {
    static constexpr std::string_view kTokens[] = {"-Infinity", "Infinity", "NaN"};
    std::string out;
    bool inString = false;
    char last = '\0';
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            out += c;
            last = c;
            continue;
        }
        bool matched = false;
        if (last == ':' || last == ',' || last == '[')
            for (const auto token : kTokens) {
                const auto end = i + token.size();
                const bool ident = end < text.size() &&
                                   (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
                if (text.compare(i, token.size(), token) == 0 && !ident) {
                    out += '"' + std::string(token) + '"';
                    i = end - 1;
                    last = '"';
                    matched = true;
                    break;
                }
            }
        if (matched)
            continue;
        out += c;
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            last = c;
    }
    return out;
}

} // namespace

TEST_CASE("the JSON scans agree with a character-at-a-time scan on any text", "[hostile][json]") {
    std::mt19937 rng(17);
    const std::string alphabet = "\"\\[]{}:, xNaIfinty-0";
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1), length(0, 64);
    for (int round = 0; round < 20000; ++round) {
        std::string text;
        for (std::size_t n = length(rng); n > 0; --n)
            text += alphabet[pick(rng)];
        INFO("text: " << text);
        CHECK(jsonTooDeep(text, 3) == depthByCharacter(text, 3));
        CHECK(normalizePythonJson(text).text == normalizedByCharacter(text));
    }
}
