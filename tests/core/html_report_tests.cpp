// The report's one self-contained HTML file: every row with the numbers the
// CSV holds, text escaped (op names come from files), images inline.

#include "core/report/html_report.h"
#include "core/report/text_format.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

using namespace gapscope;
using namespace gapscope::test;

TEST_CASE("base64 encodes RFC 4648's test vectors", "[report][html]") {
    CHECK(base64("") == "");
    CHECK(base64("f") == "Zg==");
    CHECK(base64("fo") == "Zm8=");
    CHECK(base64("foo") == "Zm9v");
    CHECK(base64("foob") == "Zm9vYg==");
    CHECK(base64("fooba") == "Zm9vYmE=");
    CHECK(base64("foobar") == "Zm9vYmFy");
    CHECK(base64(std::string("\xff\x00\x80", 3)) == "/wCA");
}

TEST_CASE("the HTML report holds every row's numbers, escapes names and embeds its figures",
          "[report][html]") {
    const auto compared = compareSessionDir(GAPSCOPE_DEMO_DIR);
    Comparison c = compared->comparison; // a copy: the rows get a hostile name
    REQUIRE(!c.rows.empty());
    RowIdentity hostile = c.rows.front().id();
    hostile.aot_ops.push_back("<script>alert(1)</script>&\"'");
    c.rows.front().identity = std::make_shared<const RowIdentity>(std::move(hostile));
    c.warnings.push_back("a <b>warning</b>");
    ReportContext ctx;
    ctx.first_divergence = firstDivergence(c, ctx.threshold);
    ctx.inputs.push_back({InputRole::EtDump, "/x/<run>.etdp", 10, "abc"});
    std::vector<ReportFigure> figures{{"Gap per op", "chart", std::string("\x89PNG\r\n", 6), SIZE_MAX},
                                      {"Row 0", "worst", std::string("PNG0"), 0}};
    std::ostringstream out;
    writeComparisonHtml(out, c, ctx, figures);
    const std::string html = out.str();

    CHECK(html.find("<script>alert(1)") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;") != std::string::npos);
    CHECK(html.find("a &lt;b&gt;warning&lt;/b&gt;") != std::string::npos);
    CHECK(html.find("/x/&lt;run&gt;.etdp") != std::string::npos);
    CHECK(html.find("data:image/png;base64," + base64(figures[0].png)) != std::string::npos);
    CHECK(html.find("data:image/png;base64," + base64(figures[1].png)) != std::string::npos);
    // No file, stylesheet or script is fetched from anywhere.
    CHECK(html.find("src=\"http") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find("<script src") == std::string::npos);

    // One table row per comparison row, each MSE equal to the row's, round-trip exact.
    const std::regex row("<tr[^>]*><td class=n data-v=\"(\\d+)\">");
    std::size_t rows = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator(); ++it)
        ++rows;
    CHECK(rows == c.rows.size());
    for (const auto& r : c.rows)
        if (const auto mse = rowMetric(r, Metric::Mse); mse && std::isfinite(*mse))
            CHECK(html.find("data-v=\"" + number(*mse) + "\"") != std::string::npos);
}
