// The method's outputs as the user saved them (saved_outputs.h): read, and every
// malformed file refused with the tensor it names.
#include "core/align/saved_outputs.h"
#include "core/capture/safetensors_writer.h"
#include "core/compare/run_checks.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace gapscope;

namespace {

std::vector<std::uint8_t> floats(std::vector<float> v) {
    std::vector<std::uint8_t> bytes(v.size() * sizeof(float));
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
}

Result<SavedOutputs> readNamed(const std::vector<std::string>& names) {
    SafetensorsWriter w;
    float k = 0;
    for (const auto& n : names)
        REQUIRE_FALSE(w.add(n, ScalarType::Float, {2}, floats({k++, 1})));
    const auto raw = w.serialize();
    return SavedOutputs::read(MappedFile::fromBytes("outputs.safetensors", raw.data(), raw.size()));
}

} // namespace

TEST_CASE("saved outputs: one execution, and several, in index order with their bytes") {
    const auto one = readNamed({"outputs/1", "outputs/0", "outputs/2"});
    REQUIRE(one);
    REQUIRE(one.value().executions() == 1);
    const auto& outputs = one.value().outputs(0);
    REQUIRE(outputs.size() == 3);
    float first[2];
    REQUIRE(outputs[1].bytes);
    std::memcpy(first, outputs[1].bytes->data, sizeof first);
    CHECK(first[0] == 0); // outputs/1 was written first, with 0
    CHECK(outputs[0].tensor->sizes == std::vector<std::int64_t>{2});
    CHECK(one.value().outputs(1).empty());

    const auto many = readNamed({"outputs/0/0", "outputs/0/1", "outputs/1/0", "outputs/1/1", "outputs/10/0",
                                 "outputs/2/0", "outputs/3/0", "outputs/4/0", "outputs/5/0", "outputs/6/0",
                                 "outputs/7/0", "outputs/8/0", "outputs/9/0"});
    REQUIRE(many);
    CHECK(many.value().executions() == 11); // numbers, not names, order them (10 after 9)
    CHECK(many.value().outputs(1).size() == 2);
    CHECK(many.value().outputs(10).size() == 1);
}

TEST_CASE("saved outputs: a malformed file is refused with the tensor it names") {
    const auto refused = [](const std::vector<std::string>& names, const std::string& said) {
        const auto r = readNamed(names);
        REQUIRE_FALSE(r);
        INFO(r.error().describe());
        CHECK(r.error().describe().find(said) != std::string::npos);
        CHECK(r.error().where.file == "outputs.safetensors");
    };
    refused({"outputs/0", "logits"}, "'logits'");
    refused({"outputs/0", "outputs/2"}, "'outputs/2' is there but output 1");
    refused({"outputs/0/0", "outputs/2/0"}, "execution 2 is there but execution 1");
    refused({"outputs/0", "outputs/1/0"}, "mixes the one-execution form");
    refused({"outputs/01"}, "'outputs/01'");
    refused({"outputs/-1"}, "'outputs/-1'");
    refused({"outputs/99999999999999999999"}, "'outputs/99999999999999999999'");
    refused({"outputs/0/0/0"}, "'outputs/0/0/0'");
    // Not safetensors at all: the reader's own located error.
    const std::uint8_t junk[] = {1, 2, 3};
    const auto r = SavedOutputs::read(MappedFile::fromBytes("outputs.safetensors", junk, sizeof junk));
    REQUIRE_FALSE(r);
    CHECK(r.error().where.file == "outputs.safetensors");
}

TEST_CASE("saved outputs: told apart from other safetensors by their names") {
    SafetensorsWriter w;
    REQUIRE_FALSE(w.add("inputs/0", ScalarType::Float, {2}, floats({1, 2})));
    const auto raw = w.serialize();
    const auto file =
        SafetensorsFile::read(MappedFile::fromBytes("inputs.safetensors", raw.data(), raw.size()));
    REQUIRE(file);
    CHECK_FALSE(SavedOutputs::namedLikeSavedOutputs(file.value()));
}

TEST_CASE("a dump of timings only is a dump of executions when the values are saved apart") {
    EtDump dump;
    const auto run = [](const char* name) {
        RunData r;
        r.name = name;
        ProfileEvent e;
        e.name = "Method::execute";
        r.events.emplace_back(e);
        return r;
    };
    dump.runs = {run("Default"), run("Execute"), run("Execute")};
    CHECK(executionsOf(dump, "forward", {}).empty()); // no debug event: no execution to compare
    CHECK(executionsOf(dump, "forward", {}, true) == std::vector<std::size_t>{1, 2}); // the load is none
    CHECK_FALSE(anyDebugEvents(dump));
    // Once any run logged a debug event, those runs alone are executions.
    dump.runs[2].events.emplace_back(DebugEvent{});
    CHECK(executionsOf(dump, "forward", {}, true) == std::vector<std::size_t>{2});
}
