#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gapscope {

// Names in a report come from the inputs (op, node, method and file names), and
// an input can be written to attack whoever reads the report. Each output format
// gets text that cannot act as anything but text there. docs/robustness.md has
// the rules; the HTML report escapes with htmlEscape (html_report.cpp).

// A CSV cell (RFC 4180 quoting). A cell that a spreadsheet would run as a
// formula (it starts with =, +, -, @, tab or carriage return) is neutralised as
// OWASP recommends: prefixed with a single quote and quoted, so it reads as the
// same text. Numbers are not cells of this kind: write them unquoted.
std::string csvCell(std::string_view text);

// Text for a Markdown document, in a table cell or a paragraph: HTML's
// specials as entities (no raw tag, no autolink), Markdown's link, emphasis,
// code and table punctuation backslash-escaped, line ends as spaces, control
// characters visibly escaped. An underscore inside a word stays as it is
// (aten_conv2d_default), since GitHub's Markdown never reads it as emphasis.
std::string markdownText(std::string_view text);

// Text for a terminal: every control character (C0 but line feed, DEL, C1, and
// the bidirectional controls U+061C, U+200E/F, U+202A..E, U+2066..9) visibly
// escaped (\e, \r, \t, \x07, \u009b, \u202e), bytes that are not UTF-8 as \xNN,
// so that no escape sequence from an input reaches the terminal. With
// `keepNewlines` false a line feed is escaped too.
std::string terminalText(std::string_view text, bool keepNewlines = true);

// The length of `text`'s longest prefix of at most `maxBytes` that does not cut
// a UTF-8 sequence: where to cut a name, a column or a line.
std::size_t characterBoundary(std::string_view text, std::size_t maxBytes);

// A name echoed in a message: terminalText on one line, cut to `maxBytes`
// (at a character boundary) with how much was cut. A 1,000,000-character
// method name is not echoed whole.
inline constexpr std::size_t kMaxEchoedName = 200;
std::string echoedName(std::string_view name, std::size_t maxBytes = kMaxEchoedName);

} // namespace gapscope
