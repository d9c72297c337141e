#include "core/report/text_format.h"

#include <charconv>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace gapscope {

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? sep : "") + v[i];
    return s;
}

std::string joinHandles(const std::vector<std::int64_t>& h, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < h.size(); ++i)
        s += (i ? sep : "") + std::to_string(h[i]);
    return s;
}

std::string number(double x) {
    if (std::isnan(x))
        return "NaN";
    if (std::isinf(x))
        return x > 0 ? "Infinity" : "-Infinity";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

std::string shortNumber(double x, int digits) {
    if (std::isnan(x) || std::isinf(x))
        return number(x);
    std::ostringstream s;
    s << std::setprecision(digits) << x;
    return s.str();
}

std::string cosineNumber(double x) {
    return shortNumber(x, 6);
}

} // namespace gapscope
