// The bogus-input catalogue (tests/hostile) through the core: each case's message
// is exact and located, and none crashes, hangs or succeeds.
#include "hostile_catalogue.h"
#include "zip_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

using namespace gapscope::test;

TEST_CASE("every case of the bogus-input catalogue gets its exact, located message", "[hostile][catalogue]") {
    const std::string demo = GAPSCOPE_DEMO_DIR;
    const auto cases = hostileCatalogue(demo);
    REQUIRE(cases.size() >= 60);
    const std::string root = tempPath("hostile-catalogue");
    std::filesystem::remove_all(root);
    std::set<std::string> ids;
    std::set<HostileRole> roles;
    for (const auto& c : cases) {
        INFO(c.id);
        CHECK(ids.insert(c.id).second);
        roles.insert(c.role);
        const std::string dir = root + "/" + c.id;
        REQUIRE(materialiseCase(c, demo, dir).empty());
        const std::string said = coreOutcome(c, dir);
        CHECK(said == c.expected);
        // Located: the message starts with the file it is about.
        const std::string file = c.role == HostileRole::Output ? c.outputPath : hostileFileName(c.role);
        CHECK(said.rfind(file + ":", 0) == 0);
    }
    CHECK(roles.size() == 5); // every input and the outputs
    std::filesystem::remove_all(root);
}
