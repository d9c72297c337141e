// Names from inputs in reports and on the terminal (issue 28): CSV formula
// injection, Markdown injection and terminal escape sequences.

#include "core/compare/comparison.h"
#include "core/report/compare_report.h"
#include "core/report/safe_text.h"

#include <catch2/catch.hpp>
#include <sstream>

using namespace gapscope;

TEST_CASE("CSV cells that a spreadsheet would run as formulas are neutralised, readable", "[report][csv]") {
    CHECK(csvCell("conv2d") == "conv2d");
    CHECK(csvCell("a,b") == "\"a,b\"");
    CHECK(csvCell("say \"hi\"") == "\"say \"\"hi\"\"\"");
    for (const std::string lead : {"=", "+", "-", "@", "\t", "\r"}) {
        INFO("leading " << lead);
        const std::string cell = csvCell(lead + "HYPERLINK(\"http://x\")");
        CHECK(cell.rfind("\"'" + lead, 0) == 0); // quoted, with a single quote before it
        CHECK(cell.back() == '"');
    }
    CHECK(csvCell("=1+2") == "\"'=1+2\"");
    CHECK(csvCell("-3") == "\"'-3\""); // a name, not a number: numbers are never written as cells
    CHECK(csvCell("a=b") == "a=b");    // only the first character makes a formula
    CHECK(csvCell("") == "");
}

TEST_CASE("Markdown text cannot open a tag, a link, a cell or a line", "[report][markdown]") {
    CHECK(markdownText("aten_conv2d_default") == "aten_conv2d_default"); // inside words: kept
    CHECK(markdownText("_private") == "\\_private");
    CHECK(markdownText("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK(markdownText("</table>") == "&lt;/table&gt;");
    CHECK(markdownText("a|b") == "a\\|b");
    CHECK(markdownText("line\nbreak\r") == "line break ");
    CHECK(markdownText("[x](javascript:alert(1))") == "\\[x\\](javascript:alert(1))");
    CHECK(markdownText("![img](http://x)") == "\\!\\[img\\](http://x)");
    CHECK(markdownText("`code` *em* ~s~ \\ #h &") == "\\`code\\` \\*em\\* \\~s\\~ \\\\ \\#h &amp;");
    CHECK(markdownText(std::string("bell\x07", 5)) == "bell\\x07");
    CHECK(markdownText("μ-law ⚑") == "μ-law ⚑");
}

TEST_CASE("terminal text escapes every control character and keeps UTF-8", "[report][terminal]") {
    CHECK(terminalText("plain name") == "plain name");
    CHECK(terminalText("\x1b[2J\x1b[H") == "\\e[2J\\e[H");                     // clear screen
    CHECK(terminalText("\x1b]52;c;SGVsbG8=\x07") == "\\e]52;c;SGVsbG8=\\x07"); // OSC 52 clipboard
    CHECK(terminalText(std::string("a\0b", 3)) == "a\\0b");
    CHECK(terminalText("a\rb\tc") == "a\\rb\\tc");
    CHECK(terminalText("two\nlines") == "two\nlines");
    CHECK(terminalText("two\nlines", false) == "two\\nlines");
    CHECK(terminalText("\x7f") == "\\u007f");
    CHECK(terminalText("\xc2\x9b"
                       "31m") == "\\u009b31m"); // C1 CSI
    CHECK(terminalText("\xff\xfe") == "\\xff\\xfe");
    CHECK(terminalText("\xe2\x9a") == "\\xe2\\x9a"); // a cut sequence
    CHECK(terminalText("\xc0\xaf") == "\\xc0\\xaf"); // overlong
    CHECK(terminalText("naïve ⚑ 𝔁") == "naïve ⚑ 𝔁");
    // Issue 55, class 10: the bidirectional controls reorder what follows them.
    CHECK(terminalText("relu\u202Eexe.txt") == "relu\\u202eexe.txt"); // right-to-left override
    CHECK(terminalText("a\u202Ab\u202Bc\u202Cd\u202De") == "a\\u202ab\\u202bc\\u202cd\\u202de");
    CHECK(terminalText("\u2066x\u2067y\u2068z\u2069") == "\\u2066x\\u2067y\\u2068z\\u2069");
    CHECK(terminalText("\u200E\u200F\u061C") == "\\u200e\\u200f\\u061c");
    // Their neighbours are characters like any other.
    CHECK(terminalText("\u2010\u2065\u206A\u2030") == "\u2010\u2065\u206A\u2030");
    CHECK(echoedName("op\u202E") == "op\\u202e");
}

TEST_CASE("an echoed name is bounded at a character boundary", "[report][terminal]") {
    const std::string huge(1000000, 'm');
    const std::string echoed = echoedName(huge);
    CHECK(echoed.size() < 300);
    CHECK(echoed.find("999800 more bytes") != std::string::npos);
    const std::string wide = std::string(199, 'a') + "⚑⚑";
    const std::string cut = echoedName(wide);
    CHECK(cut.rfind(std::string(199, 'a') + "…", 0) == 0); // the 3-byte flag is not split
    CHECK(echoedName("short\x1b") == "short\\e");
}

TEST_CASE("hostile op names reach the CSV, Markdown and table only as text", "[report][csv][markdown]") {
    Comparison c;
    ComparisonRow row;
    row.index = 0;
    RowIdentity id;
    id.aot_ops = {"=HYPERLINK(\"http://evil\")", "<script>x</script>|[a](javascript:b)"};
    id.runtime_ops = {"@SUM(A1)", "\x1b]52;c;AAAA\x07"};
    ElementPlan element; // the texts the reports show: shape and dtype
    element.shape = "+1";
    element.dtype = "float32";
    id.plans.push_back(element);
    row.identity = std::make_shared<const RowIdentity>(std::move(id));
    row.reason = "-2+3";
    c.rows.push_back(row);
    c.warnings.push_back("a warning about <b>'=cmd'</b>\nsecond line");

    std::ostringstream csv;
    writeComparisonCsv(csv, c);
    const std::string csvText = csv.str();
    CHECK(csvText.find(",\"'=HYPERLINK(\"\"http://evil\"\"); <script>x</script>|[a](javascript:b)\",") !=
          std::string::npos);
    CHECK(csvText.find(",\"'@SUM(A1); ") != std::string::npos);
    CHECK(csvText.find(",\"'-2+3\",") != std::string::npos);
    CHECK(csvText.find(",\"'+1\",") != std::string::npos);

    std::ostringstream md;
    writeComparisonMarkdown(md, c, {});
    const std::string mdText = md.str();
    CHECK(mdText.find("<script>") == std::string::npos);
    CHECK(mdText.find("<b>") == std::string::npos);
    CHECK(mdText.find("](javascript") == mdText.find("\\](javascript") + 1); // only escaped
    CHECK(mdText.find('\x1b') == std::string::npos);
    CHECK(mdText.find("&lt;script&gt;x&lt;/script&gt;\\|\\[a\\](javascript:b)") != std::string::npos);
    CHECK(mdText.find("- a warning about &lt;b&gt;'=cmd'&lt;/b&gt; second line\n") != std::string::npos);

    std::ostringstream table;
    writeComparisonTable(table, c, {});
    CHECK(table.str().find('\x1b') == std::string::npos);
    CHECK(table.str().find('\x07') == std::string::npos);
}

TEST_CASE("a cut never splits a UTF-8 sequence", "[report][terminal]") {
    CHECK(characterBoundary("short", 10) == 5);
    CHECK(characterBoundary("abcdef", 3) == 3);
    CHECK(characterBoundary("ab⚑", 3) == 2); // the flag's 3 bytes start at 2
    CHECK(characterBoundary("ab⚑", 5) == 5);
    CHECK(characterBoundary("⚑", 0) == 0);
}
