// A workspace holds several sets of files side by side (issue 24; the A/B views
// of issue 25 build on it): each set compared through it gives exactly what it
// gives alone, two sets load at once on two threads, and a file two sets share
// is mapped and parsed once.
#include "core/report/compare_report.h"
#include "core/session/session.h"
#include "core/session/workspace.h"
#include "test_support.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

using namespace gapscope;

namespace {

SessionInputs inputsOf(const char* dir) {
    return test::sessionInputsOf(dir);
}

std::string reportOf(const Session& s) {
    return test::reportJsonOf(s);
}

std::unique_ptr<Session> loadSet(const std::shared_ptr<Workspace>& workspace, FileSetId id) {
    SessionOptions options;
    options.workspace = workspace;
    options.file_set = id;
    return loadSession(workspace->fileSet(id)->inputs, options);
}

} // namespace

TEST_CASE("two sessions open side by side in one workspace, each as it is alone", "[workspace]") {
    auto workspace = std::make_shared<Workspace>();
    const FileSetId xnnpack = workspace->add(inputsOf(GAPSCOPE_DEMO_DIR));
    const FileSetId qnn = workspace->add(inputsOf(GAPSCOPE_QNN_DEMO_DIR));
    CHECK(xnnpack == 0);
    CHECK(qnn == 1);
    CHECK(workspace->fileSetCount() == 2);

    // Both at once, on two threads, through the one workspace.
    std::unique_ptr<Session> a, b;
    std::thread first([&] { a = loadSet(workspace, xnnpack); });
    std::thread second([&] { b = loadSet(workspace, qnn); });
    first.join();
    second.join();
    REQUIRE(a->complete);
    REQUIRE(b->complete);
    // What each read is the workspace's (it holds the cache; the sessions do not).
    REQUIRE(a->etrecord);
    REQUIRE(b->etrecord);
    CHECK(workspace->etrecord(a->etrecord_file).value() == a->etrecord);
    CHECK(workspace->etrecord(b->etrecord_file).value() == b->etrecord);
    CHECK(reportOf(*a) == reportOf(*loadSession(inputsOf(GAPSCOPE_DEMO_DIR))));
    CHECK(reportOf(*b) == reportOf(*loadSession(inputsOf(GAPSCOPE_QNN_DEMO_DIR))));
    CHECK(reportOf(*a) != reportOf(*b));

    // Comparing a set again (another run) parses nothing.
    const auto reads = workspace->reads();
    CHECK(reportOf(*loadSet(workspace, qnn)) == reportOf(*b));
    CHECK(workspace->reads() == reads);
}

TEST_CASE("a file two sets share is mapped and parsed once", "[workspace]") {
    auto workspace = std::make_shared<Workspace>(inputsOf(GAPSCOPE_DEMO_DIR));
    const auto first = loadSet(workspace, 0);
    const auto reads = workspace->reads();
    CHECK(reads >= 3);
    // The same folder opened again beside it: every file is one already mapped.
    const FileSetId again = workspace->add(inputsOf(GAPSCOPE_DEMO_DIR));
    const auto& a = workspace->fileSet(0)->inputs.files;
    const auto& b = workspace->fileSet(again)->inputs.files;
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        CHECK(a[i] == b[i]);
    CHECK(reportOf(*loadSet(workspace, again)) == reportOf(*first));
    CHECK(workspace->reads() == reads);
    // Other files are their own.
    const FileSetId other = workspace->add(inputsOf(GAPSCOPE_QNN_DEMO_DIR));
    loadSet(workspace, other);
    CHECK(workspace->reads() > reads);
}

TEST_CASE("a file set the workspace does not hold is an error, not a crash", "[workspace]") {
    auto workspace = std::make_shared<Workspace>(inputsOf(GAPSCOPE_DEMO_DIR));
    CHECK_FALSE(workspace->fileSet(1));
    SessionOptions options;
    options.workspace = workspace;
    options.file_set = 7;
    const auto staged = openFileSet(options);
    REQUIRE(staged.session);
    CHECK_FALSE(staged.session->comparison);
    REQUIRE(staged.session->errors.size() == 1);
    CHECK(staged.session->errors[0].message == "the workspace holds no file set 7");
    options.workspace.reset();
    CHECK(openFileSet(options).session->errors.size() == 1);
}

TEST_CASE("every run of a loop reads its times from one timing table the workspace built once",
          "[workspace][latency]") {
    // The int8 decode loop (tests/data): 6 executions, a capture per step.
    auto workspace = std::make_shared<Workspace>(inputsOf(GAPSCOPE_TEST_DATA_DIR "/decode_loop_int8"));
    SessionOptions options;
    options.workspace = workspace;
    options.comparison.run = 1; // RunData 0 is the method's load
    const auto first = loadSession(workspace->fileSet(0)->inputs, options);
    options.comparison.run = 4;
    const auto fourth = loadSession(workspace->fileSet(0)->inputs, options);
    REQUIRE((first->latency && fourth->latency));
    REQUIRE(first->dump == fourth->dump);
    const auto table = workspace->profileTable(first->dump, first->etrecord);
    CHECK(table == workspace->profileTable(fourth->dump, fourth->etrecord)); // built once, shared
    // The same table as one built alone, and each run's times read from it.
    ProfileOptions alone;
    alone.etrecord = first->etrecord.get();
    const auto fresh = profileTable(*first->dump, alone);
    REQUIRE(table->blocks.size() == fresh.blocks.size());
    CHECK(table->blocks.front().runs == fresh.blocks.front().runs);
    CHECK(first->latency->runs == fourth->latency->runs); // one block: the loop's runs
    CHECK(first->latency->runs == fresh.blocks.at(first->latency->block).runs.size());
}

// Opening reads the ETDump on another core while the captures are read (the
// sort), into the workspace the opening then takes it from: read once, with
// its progress reported, and the session the same as one read in turn.
TEST_CASE("sorting a session's files reads its ETDump beside the captures, for the opening to take",
          "[workspace]") {
    const SessionInputs inputs = inputsOf(GAPSCOPE_DEMO_DIR);
    auto workspace = std::make_shared<Workspace>();
    std::atomic<int> reported{0};
    const ProgressFn progress = [&](std::uint64_t, std::uint64_t) {
        ++reported;
        return true;
    };
    const SessionFiles files = sortSessionFiles(inputs, {}, {}, {}, workspace.get(), progress);
    REQUIRE(files.etdump);
    CHECK(workspace->reads() == 3); // the demo's two captures and the ETDump
    CHECK(reported > 0);
    const auto dump = workspace->etdump(files.etdump, files.debug_buffer, {});
    REQUIRE(dump);
    CHECK(workspace->reads() == 3); // taken from the workspace, not read again
    SessionOptions options;
    options.workspace = workspace;
    const auto session = loadSessionFiles(files, options);
    CHECK(session->dump == dump.value());
    // Each file read once, as a load through a workspace of its own reads them,
    // and the same session as one read with no workspace given.
    SessionOptions alone;
    alone.workspace = std::make_shared<Workspace>();
    const auto other = loadSession(inputs, alone);
    CHECK(workspace->reads() == alone.workspace->reads());
    CHECK(reportOf(*session) == reportOf(*other));
    CHECK(reportOf(*session) == reportOf(*loadSession(inputs)));
    // A read the progress cancels is not kept: the opening says it was cancelled.
    auto cancelledSpace = std::make_shared<Workspace>();
    const ProgressFn cancel = [](std::uint64_t, std::uint64_t) { return false; };
    const SessionFiles again = sortSessionFiles(inputs, {}, {}, {}, cancelledSpace.get(), cancel);
    SessionOptions cancelling;
    cancelling.workspace = cancelledSpace;
    cancelling.progress = cancel;
    const auto none = loadSessionFiles(again, cancelling);
    CHECK_FALSE(none->comparison);
    REQUIRE_FALSE(none->errors.empty());
    CHECK(none->errors.front().code == ErrorCode::Cancelled);
}
