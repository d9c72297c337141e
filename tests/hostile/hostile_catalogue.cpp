#include "hostile_catalogue.h"

#include "core/common/atomic_file.h"
#include "core/common/file_safety.h"
#include "core/common/mapped_file.h"
#include "core/common/zip_archive.h"
#include "core/report/report_reader.h"
#include "core/session/session.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <zip.h>

namespace gapscope::test {

namespace fs = std::filesystem;
using Entries = std::vector<std::pair<std::string, std::string>>;
using json = nlohmann::ordered_json;

const char* hostileFileName(HostileRole role) {
    switch (role) {
    case HostileRole::EtDump: return "run.etdp";
    case HostileRole::DebugBuffer: return "run.debug.bin";
    case HostileRole::EtRecord: return "etrecord.bin";
    case HostileRole::Capture: return "capture.gscap.safetensors";
    case HostileRole::Output: break;
    }
    return "out.csv";
}

namespace {

constexpr HostileRole kInputs[] = {HostileRole::EtDump, HostileRole::DebugBuffer, HostileRole::EtRecord,
                                   HostileRole::Capture};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool spit(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    return static_cast<bool>(out);
}

void putU32(std::string& bytes, std::size_t at, std::uint32_t v) {
    std::memcpy(bytes.data() + at, &v, 4);
}

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

// An archive built in memory with libzip, as ExecuTorch's zipfile writes one.
std::string zipOf(const Entries& entries, bool deflate = false) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
    zip_source_keep(buffer);
    zip_t* z = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
    for (const auto& [name, data] : entries) {
        zip_source_t* src = zip_source_buffer(z, data.data(), data.size(), 0);
        const zip_int64_t idx = zip_file_add(z, name.c_str(), src, ZIP_FL_ENC_UTF_8);
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 0);
    }
    zip_close(z);
    std::string out;
    if (zip_source_open(buffer) == 0) {
        zip_source_seek(buffer, 0, SEEK_END);
        out.resize(static_cast<std::size_t>(zip_source_tell(buffer)));
        zip_source_seek(buffer, 0, SEEK_SET);
        zip_source_read(buffer, out.data(), out.size());
        zip_source_close(buffer);
    }
    zip_source_free(buffer);
    zip_error_fini(&error);
    return out;
}

// Rewrites the uncompressed size an archive declares for `name`, in its local
// and central headers (ZIP APPNOTE 4.3.7 and 4.3.12).
std::string declareSize(std::string zip, const std::string& name, std::uint32_t size) {
    for (const auto& [signature, nameAt, sizeAt] :
         {std::tuple<std::string, std::size_t, std::size_t>{std::string("PK\x03\x04", 4), 30, 22},
          {std::string("PK\x01\x02", 4), 46, 24}})
        for (auto at = zip.find(signature); at != std::string::npos; at = zip.find(signature, at + 4))
            if (zip.compare(at + nameAt, name.size(), name) == 0 && zip.size() > at + nameAt + name.size())
                putU32(zip, at + sizeAt, size);
    return zip;
}

Entries demoEntries(const std::string& path) {
    Entries entries;
    const auto file = MappedFile::open(path);
    if (!file)
        return entries;
    const auto zip = ZipArchive::open(file.value());
    if (!zip)
        return entries;
    for (const auto& name : zip.value()->entries())
        if (auto bytes = zip.value()->read(name))
            entries.emplace_back(name, std::move(bytes.value()));
    return entries;
}

Entries with(Entries entries, const std::string& name, const std::string& bytes) {
    for (auto& [n, b] : entries)
        if (n == name)
            b = bytes;
    return entries;
}

Entries without(Entries entries, const std::string& name) {
    entries.erase(
        std::remove_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == name; }),
        entries.end());
    return entries;
}

void replaceFirst(std::string& s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    if (at != std::string::npos)
        s.replace(at, from.size(), to);
}

// A safetensors file from a raw header text and the demo capture's tensor bytes.
std::string safetensorsOf(std::string header, const std::string& data) {
    while ((8 + header.size()) % 8 != 0)
        header.push_back(' ');
    std::string out(8, '\0');
    const std::uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    return out + header + data;
}

struct DemoCapture {
    json header;
    std::string document; // the gapscope.aot_capture metadata text
    std::string data;
};

DemoCapture splitCapture(const std::string& bytes) {
    DemoCapture c;
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    c.header = json::parse(bytes.substr(8, n));
    c.document = c.header["__metadata__"]["gapscope.aot_capture"].get<std::string>();
    c.data = bytes.substr(8 + n);
    return c;
}

std::string captureWithHeader(const DemoCapture& demo, const std::function<void(json&)>& edit) {
    json header = demo.header;
    edit(header);
    return safetensorsOf(header.dump(), demo.data);
}

std::string captureWithDocument(const DemoCapture& demo, const std::string& document) {
    return captureWithHeader(demo, [&](json& h) { h["__metadata__"]["gapscope.aot_capture"] = document; });
}

std::string captureWithEdit(const DemoCapture& demo, const std::function<void(json&)>& edit) {
    json doc = json::parse(demo.document);
    edit(doc);
    return captureWithDocument(demo, doc.dump());
}

std::string firstTensor(const json& header) {
    for (const auto& [name, value] : header.items())
        if (name != "__metadata__")
            return name;
    return {};
}

HostileCase input(std::string id, HostileRole role, std::string bytes, std::string expected) {
    HostileCase c;
    c.id = std::move(id);
    c.role = role;
    c.bytes = std::move(bytes);
    c.expected = std::move(expected);
    return c;
}

HostileCase warning(std::string id, HostileRole role, std::string bytes, std::string expected) {
    HostileCase c = input(std::move(id), role, std::move(bytes), std::move(expected));
    c.warning = true;
    return c;
}

HostileCase report(std::string id, std::string bytes) {
    HostileCase c = input(std::move(id), HostileRole::Capture, std::move(bytes), "");
    c.report = true;
    return c;
}

HostileCase special(std::string id, HostileRole role, HostileSpecial kind, std::string expected) {
    HostileCase c = input(std::move(id), role, {}, std::move(expected));
    c.special = kind;
    return c;
}

HostileCase output(std::string id, std::string flag, std::string path, HostileSpecial kind,
                   std::string expected) {
    HostileCase c = special(std::move(id), HostileRole::Output, kind, std::move(expected));
    c.outputFlag = std::move(flag);
    c.outputPath = std::move(path);
    return c;
}

#include "hostile_cases.inc"

// Makes `path` the special file `kind` (links are relative, inside `dir`).
void makeSpecial(HostileSpecial kind, const std::string& path, const std::string& dir, std::error_code& ec) {
    const auto fifo = [&ec](const std::string& p) {
        if (::mkfifo(p.c_str(), 0600) != 0)
            ec.assign(errno, std::generic_category());
    };
    switch (kind) {
    case HostileSpecial::Fifo: fifo(path); break;
    case HostileSpecial::Directory: fs::create_directory(path, ec); break;
    case HostileSpecial::SymlinkToFifo:
        fifo(dir + "/pipe");
        if (!ec)
            fs::create_symlink("pipe", path, ec);
        break;
    case HostileSpecial::DanglingSymlink: fs::create_symlink("nothing-here", path, ec); break;
    case HostileSpecial::SymlinkToNewFile:
        if (!spit(dir + "/notes.txt", "kept\n"))
            ec = std::make_error_code(std::errc::io_error);
        else
            fs::create_symlink("notes.txt", path, ec);
        break;
    case HostileSpecial::HardLinkToInput: fs::create_hard_link(dir + "/etrecord.bin", path, ec); break;
    case HostileSpecial::SymlinkToFolder:
        fs::create_directory(dir + "/elsewhere", ec);
        if (!ec)
            fs::create_symlink("elsewhere", path, ec);
        break;
    case HostileSpecial::InputReport:
        // A report of no rows: valid to read, and an input once read.
        if (!spit(path, "{\"schema_version\": 3, \"rows\": []}\n"))
            ec = std::make_error_code(std::errc::io_error);
        break;
    case HostileSpecial::None:
    case HostileSpecial::Missing: break; // written by the caller, or left out
    }
}

} // namespace

std::vector<HostileCase> hostileCatalogue(const std::string& demoDir) {
    const std::string etdump = slurp(demoDir + "/run.etdp");
    const std::string debug = slurp(demoDir + "/run.debug.bin");
    const std::string etrecord = slurp(demoDir + "/etrecord.bin");
    const Entries entries = demoEntries(demoDir + "/etrecord.bin");
    const DemoCapture capture = splitCapture(slurp(demoDir + "/capture.gscap.safetensors"));
    std::vector<HostileCase> cases;
    addEtDumpCases(cases, etdump, etrecord);
    addDebugBufferCases(cases, debug);
    addEtRecordCases(cases, entries);
    addCaptureCases(cases, capture);
    addReportCases(cases, capture);
    addSpecialFileCases(cases);
    addOutputCases(cases);
    return cases;
}

std::string materialiseCase(const HostileCase& c, const std::string& demoDir, const std::string& dir) {
    std::error_code ec;
    if (!fs::create_directories(dir, ec) || ec)
        return dir + ": cannot create the case folder";
    for (HostileRole role : kInputs) {
        const std::string name = hostileFileName(role);
        const std::string path = dir + "/" + name;
        if (role != c.role) {
            if (!fs::copy_file(demoDir + "/" + name, path, ec))
                return path + ": " + ec.message();
            continue;
        }
        if (c.special == HostileSpecial::None) {
            if (!spit(path, c.bytes))
                return path + ": cannot write";
        } else {
            makeSpecial(c.special, path, dir, ec);
            if (ec)
                return path + ": " + ec.message();
        }
    }
    if (c.role != HostileRole::Output)
        return {};
    const std::string out = dir + "/" + c.outputPath;
    makeSpecial(c.special, out, dir, ec);
    return ec ? out + ": " + ec.message() : std::string();
}

std::string coreOutcome(const HostileCase& c, const std::string& dir) {
    const auto relative = [&](std::string text) {
        const std::string prefix = dir + "/";
        for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at))
            text.erase(at, prefix.size());
        return text;
    };
    SessionFiles files;
    for (HostileRole role : kInputs) {
        auto mapped = MappedFile::open(dir + "/" + hostileFileName(role));
        if (!mapped)
            return relative(mapped.error().describe());
        (role == HostileRole::EtDump        ? files.etdump
         : role == HostileRole::DebugBuffer ? files.debug_buffer
         : role == HostileRole::EtRecord    ? files.etrecord
                                            : files.capture) = mapped.value();
    }
    if (c.special == HostileSpecial::InputReport)
        if (const auto baseline = loadSavedReport(dir + "/" + c.outputPath); !baseline)
            return relative(baseline.error().describe());
    const auto session = loadSessionFiles(files);
    if (!session->errors.empty())
        return relative(session->errors.front().describe());
    if (c.role == HostileRole::Output && c.outputFlag == "--model-explorer") {
        if (auto error = refuseUnsafeOutputFolder(dir + "/" + c.outputPath))
            return relative(error->describe());
    } else if (c.role == HostileRole::Output) {
        if (auto error = writeFileAtomically(dir + "/" + c.outputPath, std::string_view("report\n")))
            return relative(error->describe());
    }
    if (session->comparison)
        for (const auto& w : session->comparison->warnings)
            if (relative(w).rfind(std::string(hostileFileName(c.role)) + ":", 0) == 0)
                return relative(w);
    return {};
}

std::vector<std::string> cliArguments(const HostileCase& c) {
    std::vector<std::string> args{"compare",        "--etdump",      "run.etdp",
                                  "--debug-buffer", "run.debug.bin", "--etrecord",
                                  "etrecord.bin",   "--capture",     "capture.gscap.safetensors"};
    if (c.special == HostileSpecial::InputReport)
        args.insert(args.end(), {"--baseline", c.outputPath});
    if (c.role == HostileRole::Output) {
        args.push_back(c.outputFlag);
        args.push_back(c.outputPath);
    }
    if (c.report)
        args.insert(args.end(), {"--csv", "out.csv", "--markdown", "out.md"});
    return args;
}

} // namespace gapscope::test
