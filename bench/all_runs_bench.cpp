// Issue 60: `gapscope-cli compare DIR --all-runs` on an LLM-scale decode loop
// (bench/run writes it: 65 executions x 239 ops, a debug buffer of more than
// 1 GiB, a capture per step) against the floor for any tool that checks and
// reads what it compares, measured side by side in one run (a warm-up pass, five interleaved
// rounds, medians):
//   - verify: the FlatBuffers verifier over the ETDump;
//   - captures: simdjson over each step capture's safetensors header and its
//     metadata document;
//   - bytes: metrics_ratio's bare difference sum (a double accumulating
//     double(a) - double(b)) over every value compared, the debug buffer's
//     against every capture's tensors, on every core. Printed beside it, not in
//     the floor: the same bytes only read (SIMD float sums), the memory's floor.
// `all_runs_over_floor` is the command's wall time over the floor's; with
// `--json` (every run's report, streamed run by run) as a figure of its own.
// usage: gapscope_all_runs_bench DIR GAPSCOPE_CLI

#include "bench/bench_timing.h"
#include "core/common/allocator_tuning.h"
#include "core/etdump/etdump_verify.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <simdjson.h>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace gapscope;
using gapscope::bench::Clock;
using gapscope::bench::median;
using gapscope::bench::seconds;

namespace {

struct Mapped {
    const unsigned char* data = nullptr;
    std::size_t size = 0;
    explicit Mapped(const std::filesystem::path& path) {
        const int fd = ::open(path.c_str(), O_RDONLY);
        struct stat st {};
        if (fd >= 0 && ::fstat(fd, &st) == 0 && st.st_size > 0) {
            void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
            if (p != MAP_FAILED) {
                data = static_cast<const unsigned char*>(p);
                size = static_cast<std::size_t>(st.st_size);
            }
        }
        if (fd >= 0)
            ::close(fd);
    }
    ~Mapped() {
        if (data)
            ::munmap(const_cast<unsigned char*>(data), size);
    }
    Mapped(const Mapped&) = delete;
    Mapped& operator=(const Mapped&) = delete;
};

struct Floor {
    double verify = 0, captures = 0, bytes = 0;
    double read = 0; // not in the floor: the bytes read with no difference computed
    std::size_t byteCount = 0;
    double total() const { return verify + captures + bytes; }
};

using Ranges = std::vector<std::pair<const unsigned char*, std::size_t>>;

// Splits the float32 values of `ranges` (in order) in `threads` equal shares, and
// calls part(t, data, first, last, at) on thread t for each range's piece of its
// share: values [first, last) of range `data`, whose value 0 is value `at` of all.
// Returns the sum of what each thread's `finish` returns.
template <typename Part, typename Finish>
double overShares(const Ranges& ranges, std::size_t total, unsigned threads, Part part, Finish finish) {
    std::vector<double> sums(threads, 0.0);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const std::size_t from = total * t / threads, to = total * (t + 1) / threads;
            std::size_t at = 0;
            for (const auto& [data, size] : ranges) {
                const std::size_t n = size / 4, lo = std::max(from, at), hi = std::min(to, at + n);
                if (lo < hi)
                    part(t, data, lo - at, hi - at, at);
                at += n;
            }
            sums[t] = finish(t);
        });
    for (auto& th : pool)
        th.join();
    double s = 0;
    for (double v : sums)
        s += v;
    return s;
}

std::size_t valuesIn(const Ranges& ranges) {
    std::size_t total = 0;
    for (const auto& r : ranges)
        total += r.second / 4;
    return total;
}

// The float32 sum of every range, on `threads` threads, eight lanes (SIMD).
double sumFloats(const Ranges& ranges, unsigned threads) {
    std::vector<std::array<float, 8>> acc(threads, std::array<float, 8>{});
    return overShares(
        ranges, valuesIn(ranges), threads,
        [&](unsigned t, const unsigned char* data, std::size_t first, std::size_t last, std::size_t) {
            std::array<float, 8> lanes = acc[t]; // in registers: the threads' arrays share a cache line
            for (std::size_t i = first; i + 8 <= last; i += 8) {
                float v[8];
                std::memcpy(v, data + 4 * i, sizeof v);
                for (std::size_t k = 0; k < 8; ++k)
                    lanes[k] += v[k];
            }
            acc[t] = lanes;
        },
        [&](unsigned t) {
            double s = 0;
            for (float a : acc[t])
                s += a;
            return s;
        });
}

// The bare difference sum of metrics_ratio (gap_bench.cpp: double(a) - double(b)
// accumulated in a double, element by element), over the runtime's bytes (the
// debug buffer) against the reference's (every capture's tensors, in order), on
// `threads` threads: the pass any tool comparing these values makes, with nothing
// computed but the difference. The two sides hold the same number of values.
double differenceSum(const unsigned char* runtime, std::size_t runtimeBytes, const Ranges& reference,
                     unsigned threads) {
    std::vector<double> sums(threads, 0.0);
    return overShares(
        reference, std::min(valuesIn(reference), runtimeBytes / 4), threads,
        [&](unsigned t, const unsigned char* data, std::size_t first, std::size_t last, std::size_t at) {
            double s = sums[t];
            for (std::size_t i = first; i < last; ++i) {
                float a, b;
                std::memcpy(&a, runtime + 4 * (at + i), 4);
                std::memcpy(&b, data + 4 * i, 4);
                s += static_cast<double>(a) - static_cast<double>(b);
            }
            sums[t] = s;
        },
        [&](unsigned t) { return sums[t]; });
}

Floor floorOf(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& captures) {
    Floor f;
    {
        Mapped etdump(dir / "run.etdp");
        const auto t0 = Clock::now();
        Location where;
        std::string what;
        if (!verifyEtdumpFlatbuffer({etdump.data, etdump.size}, true, where, what))
            std::fprintf(stderr, "floor: the ETDump does not verify: %s\n", what.c_str());
        f.verify = seconds(t0);
    }
    std::vector<std::unique_ptr<Mapped>> maps;
    Ranges ranges;
    simdjson::dom::parser parser;
    auto t0 = Clock::now();
    for (const auto& path : captures) {
        maps.push_back(std::make_unique<Mapped>(path));
        const Mapped& m = *maps.back();
        std::uint64_t size = 0;
        std::memcpy(&size, m.data, 8);
        const simdjson::padded_string header(reinterpret_cast<const char*>(m.data) + 8, size);
        std::string_view document;
        if (parser.parse(header)["__metadata__"]["gapscope.aot_capture"].get(document))
            std::fprintf(stderr, "floor: %s has no capture document\n", path.c_str());
        const simdjson::padded_string doc(document);
        simdjson::dom::element records;
        if (parser.parse(doc)["records"].get(records))
            std::fprintf(stderr, "floor: %s: no records\n", path.c_str());
        ranges.emplace_back(m.data + 8 + size, m.size - 8 - size);
    }
    f.captures = seconds(t0);
    Mapped buffer(dir / "run.debug.bin");
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    t0 = Clock::now();
    volatile double sink = differenceSum(buffer.data, buffer.size, ranges, threads);
    f.bytes = seconds(t0);
    // For comparison only: reading the same bytes with nothing computed (SIMD float sums).
    ranges.emplace_back(buffer.data, buffer.size);
    t0 = Clock::now();
    sink = sink + sumFloats(ranges, threads);
    (void)sink;
    f.read = seconds(t0);
    std::size_t total = 0;
    for (const auto& r : ranges)
        total += r.second;
    f.byteCount = total;
    return f;
}

struct Run {
    double wall = 0, cpu = 0, peakMib = 0;
};

Run runCommand(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    // fork, not posix_spawn: glibc's posix_spawn starts the child in this
    // process's memory (vfork), and exec then counts this process's peak, the
    // floor's two gigabytes of mapped inputs, into the child's ru_maxrss (a
    // peak of 2,073 MiB reported for a command whose own was 110 MiB).
    const auto t0 = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        if (null >= 0)
            ::dup2(null, 1);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    if (pid < 0) {
        std::fprintf(stderr, "cannot start %s\n", argv[0]);
        std::exit(1);
    }
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    Run r;
    r.wall = seconds(t0);
    r.cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    r.peakMib = static_cast<double>(usage.ru_maxrss) / 1024.0;
    if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3)) {
        std::fprintf(stderr, "%s failed (status %d)\n", argv[0], status);
        std::exit(1);
    }
    return r;
}

} // namespace

int main(int argc, char** argv) {
    tuneAllocator();
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s DIR GAPSCOPE_CLI\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir(argv[1]);
    std::vector<std::filesystem::path> captures;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().find(".gscap.safetensors") != std::string::npos)
            captures.push_back(e.path());
    std::sort(captures.begin(), captures.end());
    const auto json = (std::filesystem::temp_directory_path() / "gapscope-all-runs-bench.json").string();
    std::vector<double> floors, verifies, capturesParse, bytes, reads, plain, plainCpu, withJson, withJsonCpu,
        peaks;
    // A pass first, not counted: the inputs come into the page cache. The first
    // of three rounds had read them from disk (a floor of 0.996 s beside 0.232
    // and 0.169), and the median of three then followed whichever other
    // round was slower. Five rounds, interleaved: each sees the same machine.
    floorOf(dir, captures);
    for (int round = 0; round < 5; ++round) {
        const Floor f = floorOf(dir, captures);
        floors.push_back(f.total());
        verifies.push_back(f.verify);
        capturesParse.push_back(f.captures);
        bytes.push_back(f.bytes);
        reads.push_back(f.read);
        const Run p = runCommand({argv[2], "compare", dir.string(), "--all-runs"});
        plain.push_back(p.wall);
        plainCpu.push_back(p.cpu);
        const Run j = runCommand({argv[2], "compare", dir.string(), "--all-runs", "--json", json});
        withJson.push_back(j.wall);
        withJsonCpu.push_back(j.cpu);
        peaks.push_back(j.peakMib);
        std::fprintf(stderr,
                     "all-runs round %d: floor %.3f s (verify %.3f, captures %.3f, %zu bytes %.3f); "
                     "compare --all-runs %.2f s wall, %.2f s CPU; with --json %.2f s, %.2f s CPU\n",
                     round, f.total(), f.verify, f.captures, f.byteCount, f.bytes, p.wall, p.cpu, j.wall,
                     j.cpu);
        std::fprintf(stderr, "  the same bytes only read: %.3f s\n", f.read);
    }
    const double jsonMib = static_cast<double>(std::filesystem::file_size(json)) / (1 << 20);
    std::filesystem::remove(json);
    const double floor = median(floors);
    std::printf(
        "{\"benchmark\":\"gapscope_all_runs_bench\",\"all_runs_over_floor\":%.2f,"
        "\"all_runs_json_over_floor\":%.2f,\"all_runs_seconds\":%.3f,\"all_runs_cpu_seconds\":%.3f,"
        "\"all_runs_json_seconds\":%.3f,\"all_runs_json_cpu_seconds\":%.3f,\"all_runs_json_mib\":%.1f,"
        "\"all_runs_peak_mib\":%.1f,\"all_runs_floor_seconds\":%.3f,\"all_runs_floor_verify_seconds\":%.4f,"
        "\"all_runs_floor_captures_seconds\":%.4f,\"all_runs_floor_bytes_seconds\":%.4f,"
        "\"all_runs_read_seconds\":%.4f,"
        "\"all_runs_captures\":%zu}\n",
        median(plain) / floor, median(withJson) / floor, median(plain), median(plainCpu), median(withJson),
        median(withJsonCpu), jsonMib, median(peaks), floor, median(verifies), median(capturesParse),
        median(bytes), median(reads), captures.size());
    return 0;
}
