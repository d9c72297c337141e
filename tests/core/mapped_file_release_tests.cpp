// MappedFile::release gives a mapping's pages back without changing what the
// bytes read: measured tensors and hashed inputs stop counting in resident
// memory (issue 29), and nothing but the file's own mapping is ever released.
#include "core/common/mapped_file.h"
#include "core/common/page_releaser.h"
#include "core/common/sha256.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace gapscope;

namespace {

// The resident kB of the mapping that starts at `data`'s page, from
// /proc/self/smaps; -1 when no mapping starts there.
long residentKiB(const std::uint8_t* data) {
    const auto start = reinterpret_cast<std::uintptr_t>(data) & ~std::uintptr_t(4095);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long long from = 0, to = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx ", &from, &to) == 2 && line.find(':') > line.find(' ')) {
            inside = from == start;
            continue;
        }
        long kib = 0;
        if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kib) == 1)
            return kib;
    }
    return -1;
}

unsigned touch(ByteSpan bytes) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < bytes.size; i += 512)
        sum += bytes.data[i];
    return sum;
}

// The demo's ETRecord, mapped afresh (a mapping of its own each call).
std::shared_ptr<const MappedFile> openDemoRecord() {
    auto opened = MappedFile::open(std::string(GAPSCOPE_DEMO_DIR) + "/etrecord.bin");
    REQUIRE(opened);
    return opened.value();
}

// The demo's ETRecord mapped and every page read once: its bytes, a copy of
// them, and the mapping's resident kB before anything is released.
struct ReadRecord {
    std::shared_ptr<const MappedFile> file = openDemoRecord();
    ByteSpan all = file->bytes();
    std::vector<std::uint8_t> copy{all.data, all.data + all.size};
    long before = (touch(all), residentKiB(all.data));
};

} // namespace

TEST_CASE("releasing a mapped file's pages drops them from resident memory and keeps its bytes", "[mapped]") {
    const ReadRecord record;
    const auto& [mapped, all, copy, before] = record;
    const auto& file = *mapped;
    REQUIRE(all.size > 100000);
    REQUIRE(before >= static_cast<long>(all.size / 1024));

    // Pages 2 … 23 lie wholly inside [5000, 100000): 88 kB of 4 kB pages.
    file.release(all.subspan(5000, 95000));
    const long after = residentKiB(all.data);
    CHECK(after <= before - 88);
    CHECK(std::vector<std::uint8_t>(all.data, all.data + all.size) == copy); // read again from the file
    CHECK(residentKiB(all.data) >= static_cast<long>(all.size / 1024));

    // Bytes outside this mapping are never released: the copy is heap memory,
    // which would read back as zeros.
    file.release(ByteSpan{copy.data(), copy.size()});
    CHECK(std::vector<std::uint8_t>(all.data, all.data + all.size) == copy);

    // Hashing the file releases each chunk once hashed; the digest is unchanged.
    const std::string digest = sha256Hex(all);
    touch(all);
    CHECK(sha256Hex(file) == digest);
    CHECK(residentKiB(all.data) < before);
}

TEST_CASE("releasing bytes held in memory changes nothing", "[mapped]") {
    std::vector<std::uint8_t> bytes(64 * 1024);
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<std::uint8_t>(i * 7 + 1);
    const auto file = MappedFile::fromBytes("in memory", bytes.data(), bytes.size());
    file->release(file->bytes());
    CHECK(std::vector<std::uint8_t>(file->bytes().data, file->bytes().data + file->bytes().size) == bytes);
}

TEST_CASE("the page releaser merges touching spans into one call a run and keeps every byte", "[mapped]") {
    const ReadRecord record;
    const auto& [mapped, all, copy, before] = record;
    const auto& file = *mapped;
    REQUIRE(all.size > 110000);

    PageReleaser releaser;
    // Tensors of 5,000 bytes measured out of order on several threads: one
    // run [0, 50144) with 16-byte padding between them, then one far away.
    std::vector<std::size_t> order = {5, 0, 9, 3, 7, 1, 8, 2, 6, 4};
    for (const std::size_t k : order)
        releaser.add(file, all.subspan(k * 5016, 5000));
    releaser.add(file, all.subspan(100000, 10000));
    // Bytes held in memory are added too, and released by nothing.
    releaser.add(file, ByteSpan{copy.data(), 50000});
    CHECK(releaser.held() == 10 * 5000 + 10000 + 50000);
    CHECK(residentKiB(all.data) == before); // nothing given back before flush
    releaser.flush();
    CHECK(releaser.held() == 0);
    // The run, the far span and the heap span: three calls, not twelve.
    CHECK(releaser.calls() == 3);
    CHECK(residentKiB(all.data) <= before - 48); // [0, 50144): 12 whole pages
    CHECK(std::vector<std::uint8_t>(all.data, all.data + all.size) == copy);
    releaser.flush(); // nothing held: no call
    CHECK(releaser.calls() == 3);
}

TEST_CASE("the page releaser keeps spans a page apart and spans of two files in calls of their own",
          "[mapped]") {
    const auto a = openDemoRecord(), b = openDemoRecord();
    const ByteSpan x = a->bytes(), y = b->bytes();
    {
        PageReleaser releaser;
        releaser.add(*a, x.subspan(0, 8192));
        releaser.add(*a, x.subspan(8192 + PageReleaser::kMergeGap + 1, 8192)); // too far: apart
        releaser.add(*b, y.subspan(8192, 8192));                               // the other mapping
        releaser.flush();
        CHECK(releaser.calls() == 3);
        releaser.add(*a, x.subspan(40000, 8192));
    } // the destructor gives back what is still held
    touch(x);
    touch(y);
}

TEST_CASE("the page releaser gives back on its own once it holds its threshold", "[mapped]") {
    const auto opened = openDemoRecord();
    const ByteSpan all = opened->bytes();
    PageReleaser releaser(20000);
    releaser.add(*opened, all.subspan(0, 10000));
    CHECK(releaser.calls() == 0);
    CHECK(releaser.held() == 10000);
    releaser.add(*opened, all.subspan(10000, 10000)); // 20,000 held: given back, merged
    CHECK(releaser.calls() == 1);
    CHECK(releaser.held() == 0);
    releaser.add(*opened, all.subspan(40000, 5000));
    CHECK(releaser.calls() == 1);
    releaser.flush();
    CHECK(releaser.calls() == 2);
}
