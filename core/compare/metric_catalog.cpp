#include "core/compare/metric_catalog.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace gapscope {

const std::vector<MetricInfo>& metricCatalog() {
    static const std::vector<MetricInfo> catalog = {
        {"mse", true},           {"l1", true},         {"snr", false},
        {"mean_abs", true},      {"max_abs", true},    {"rel_l2", true},
        {"cosine", false},       {"sqnr", false},      {"rmse_steps", true},
        {"max_abs_steps", true}, {"saturation", true}, {"top1", false},
        {"top5", false},
    };
    return catalog;
}

std::optional<MetricInfo> findMetric(const std::string& name) {
    for (const auto& m : metricCatalog())
        if (name == m.name)
            return m;
    return std::nullopt;
}

std::optional<double> metricValue(const GapMetrics& m, const std::string& name) {
    if (name == "mse")
        return m.mse;
    if (name == "l1")
        return m.l1;
    if (name == "snr")
        return m.snr;
    if (name == "mean_abs")
        return m.mean_abs;
    if (name == "max_abs")
        return m.max_abs;
    if (name == "rel_l2")
        return m.rel_l2;
    if (name == "cosine")
        return m.cosine;
    if (name == "sqnr")
        return m.sqnr;
    if (name == "rmse_steps")
        return m.rmse_steps;
    if (name == "max_abs_steps")
        return m.max_abs_steps;
    if (name == "saturation")
        return m.saturation;
    if (name == "top1")
        return m.top1_agreement;
    if (name == "top5")
        return m.top5_agreement;
    return std::nullopt;
}

bool worseThan(const MetricInfo& metric, double value, double limit) {
    if (std::isnan(value))
        return true; // an undefined gap is never "fine"
    return metric.higher_is_worse ? value > limit : value < limit;
}

std::optional<double> rowMetric(const ComparisonRow& row, const std::string& name) {
    const auto info = findMetric(name);
    if (!info || row.gaps.empty())
        return std::nullopt;
    std::optional<double> worst;
    for (const auto& g : row.gaps) {
        const auto v = metricValue(g, name);
        if (!v)
            continue;
        if (!worst || worseThan(*info, *v, *worst))
            worst = v;
    }
    return worst;
}

std::optional<MetricThreshold> parseThreshold(const std::string& text, std::string& error) {
    const auto eq = text.find('=');
    if (eq == std::string::npos) {
        error = "expected METRIC=VALUE, got '" + text + "'";
        return std::nullopt;
    }
    MetricThreshold t;
    t.metric = text.substr(0, eq);
    for (auto& ch : t.metric)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (!findMetric(t.metric)) {
        error = "unknown metric '" + t.metric +
                "' (known: mse, l1, snr, mean_abs, max_abs, rel_l2, cosine, sqnr, "
                "rmse_steps, max_abs_steps, saturation, top1, top5)";
        return std::nullopt;
    }
    const std::string number = text.substr(eq + 1);
    char* end = nullptr;
    t.value = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || std::isnan(t.value)) {
        error = "'" + number + "' is not a number";
        return std::nullopt;
    }
    return t;
}

} // namespace gapscope
