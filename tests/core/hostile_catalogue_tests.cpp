// The bogus-input catalogue (tests/hostile) through the core: each case's message
// is exact and located, and none crashes, hangs or succeeds.
#include "core/report/compare_report.h"
#include "core/session/session.h"
#include "hostile_catalogue.h"
#include "zip_writer.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

using namespace gapscope::test;

namespace {

// A report case's session (op names made to attack a report's reader): the CSV,
// the Markdown and the terminal table show the names only as text.
void checkReportsShowNamesAsText(const std::string& dir) {
    using namespace gapscope;
    std::vector<Error> errors;
    const auto session = loadSession(sessionInputsFromPaths({dir}, errors));
    REQUIRE(errors.empty());
    REQUIRE(session->comparison);
    const Comparison& c = *session->comparison;
    std::ostringstream csv, md, table;
    writeComparisonCsv(csv, c);
    writeComparisonMarkdown(md, c, {});
    writeComparisonTable(table, c, {});
    const std::regex formula("(^|,)\"?([=+@\t\r]|-[^0-9I])");
    std::istringstream lines(csv.str());
    for (std::string line; std::getline(lines, line, '\n');) {
        // The line's own CRLF ends its last cell (often empty: no time), it starts none.
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        CHECK_FALSE(std::regex_search(line, formula));
    }
    CHECK(md.str().find('<') == std::string::npos);
    CHECK_FALSE(std::regex_search(md.str(), std::regex(R"([^\\]\]\()"))); // a link: "](" not escaped
    for (const std::string& text : {md.str(), table.str()})
        for (char ch : text)
            CHECK_FALSE(((static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7f));
    std::istringstream tableLines(table.str());
    for (std::string line; std::getline(tableLines, line);)
        CHECK(line.size() <= 4096);
}

} // namespace

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
        if (c.report) {
            checkReportsShowNamesAsText(dir);
            continue;
        }
        // Located: the message starts with the file it is about.
        const std::string file = c.role == HostileRole::Output ? c.outputPath : hostileFileName(c.role);
        CHECK(said.rfind(file + ":", 0) == 0);
    }
    CHECK(roles.size() == 5); // every input and the outputs
    std::filesystem::remove_all(root);
}
