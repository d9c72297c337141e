// A workspace holds several sets of files side by side (issue 24; the A/B views
// of issue 25 build on it): each set compared through it gives exactly what it
// gives alone, two sets load at once on two threads, and a file two sets share
// is mapped and parsed once.
#include "core/report/compare_report.h"
#include "core/session/session.h"
#include "core/session/workspace.h"

#include <catch2/catch.hpp>
#include <thread>

using namespace gapscope;

namespace {

SessionInputs inputsOf(const char* dir) {
    std::vector<Error> errors;
    auto inputs = sessionInputsFromPaths({dir}, errors);
    REQUIRE(errors.empty());
    return inputs;
}

std::string reportOf(const Session& s) {
    REQUIRE(s.comparison);
    return comparisonToJson(*s.comparison, ReportContext{}).dump();
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
    CHECK(a->file_set == xnnpack);
    CHECK(b->file_set == qnn);
    CHECK(a->workspace == workspace);
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
