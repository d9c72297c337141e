// FlatIndex (core/common/flat_index.h), the open-addressing index behind the
// Inspector's event groups, the runtime entries' merge and the capture's tensor
// names: keys that share a hash, or a start slot, are told apart by `same`
// alone; a full run of probes wraps around the end of the array; an absent key
// is kNone without being added.
#include "core/capture/safetensors_file.h"
#include "core/common/flat_index.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

using gapscope::FlatIndex;
using gapscope::NoKey;

TEST_CASE("FlatIndex tells keys of one hash apart by their own comparison", "[flat_index]") {
    FlatIndex<std::int64_t> index(100);
    const auto slotOf = [&](std::int64_t key) -> std::size_t& {
        // Every key the same hash: one chain of probes holds them all.
        return index.at(key, 7, [key](const auto& slot) { return slot.key == key; });
    };
    for (std::int64_t k = 0; k < 100; ++k) {
        std::size_t& v = slotOf(k * 1000);
        REQUIRE(v == index.kNone);
        v = static_cast<std::size_t>(k);
    }
    for (std::int64_t k = 0; k < 100; ++k)
        CHECK(slotOf(k * 1000) == static_cast<std::size_t>(k));
    CHECK(index.find(7, [](const auto& slot) { return slot.key == 42; }) == index.kNone);
    CHECK(index.find(7, [](const auto& slot) { return slot.key == 42000; }) == 42);
    CHECK(index.find(8, [](const auto& slot) { return slot.key == 999; }) == index.kNone);
}

TEST_CASE("FlatIndex wraps its probes around the end of its slots", "[flat_index]") {
    // Sized for 8 keys: 16 slots. Hashes that start at the last slot fill it,
    // then the first ones.
    FlatIndex<std::int64_t> index(8);
    for (std::int64_t k = 0; k < 8; ++k)
        index.at(k, 15, [k](const auto& slot) { return slot.key == k; }) = static_cast<std::size_t>(10 + k);
    for (std::int64_t k = 0; k < 8; ++k)
        CHECK(index.find(15, [k](const auto& slot) { return slot.key == k; }) ==
              static_cast<std::size_t>(10 + k));
    // A key never assigned stays absent: its slot still reads as empty.
    CHECK(index.at(99, 15, [](const auto& slot) { return slot.key == 99; }) == index.kNone);
    CHECK(index.find(15, [](const auto& slot) { return slot.key == 99; }) == index.kNone);
}

TEST_CASE("FlatIndex without keys compares through the caller's items", "[flat_index]") {
    const std::vector<std::string> items{"b", "a", "b", "c", "a"};
    std::vector<std::string> distinct;
    FlatIndex<NoKey> index(items.size());
    std::vector<std::size_t> numbers;
    for (const auto& s : items) {
        std::size_t& at = index.at(NoKey{}, std::hash<std::string>()(s),
                                   [&](const auto& slot) { return distinct[slot.value] == s; });
        if (at == index.kNone) {
            at = distinct.size();
            distinct.push_back(s);
        }
        numbers.push_back(at);
    }
    CHECK(distinct == std::vector<std::string>{"b", "a", "c"});
    CHECK(numbers == std::vector<std::size_t>{0, 1, 0, 2, 1});
}

TEST_CASE("a capture's tensors are found by name, and no other", "[flat_index]") {
    const auto file =
        gapscope::SafetensorsFile::load(std::string(GAPSCOPE_DEMO_DIR) + "/capture.gscap.safetensors");
    REQUIRE(file);
    const auto& names = file.value();
    REQUIRE(names.tensors().size() > 10);
    for (const auto& [name, tensor] : names.tensors())
        CHECK(names.find(name) == &tensor);
    CHECK(names.find("") == nullptr);
    CHECK(names.find("no such tensor") == nullptr);
    const std::string first = names.tensors().begin()->first;
    CHECK(names.find(first + "x") == nullptr);
    CHECK(names.find(std::string_view(first).substr(0, first.size() - 1)) == nullptr);
}
