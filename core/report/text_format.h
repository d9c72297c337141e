#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gapscope {

// How the reports (table, Markdown, CSV, HTML) write names and numbers.
std::string join(const std::vector<std::string>& v, const char* sep);
std::string joinHandles(const std::vector<std::int64_t>& h, const char* sep = " ");
// Shortest round-trip decimal; NaN, Infinity, -Infinity.
std::string number(double x);
std::string shortNumber(double x, int digits = 3);
// Cosine with six digits: quantised backends score 0.9999x, which three would show as 1.
std::string cosineNumber(double x);

} // namespace gapscope
