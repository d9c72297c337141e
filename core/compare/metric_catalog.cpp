#include "core/compare/metric_catalog.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace gapscope {

namespace {

// A GapMetrics field (double or optional<double>) as a metric's value.
template <auto Field> std::optional<double> read(const GapMetrics& m) {
    return m.*Field;
}

} // namespace

const std::vector<MetricInfo>& metricCatalog() {
    using M = Metric;
    using G = GapMetrics;
    // id, name, label, higher is worse, ExecuTorch's, charted, value.
    static const std::vector<MetricInfo> catalog = {
        {M::Mse, "mse", "MSE", true, true, true, read<&G::mse>},
        {M::L1, "l1", "L1", true, true, true, read<&G::l1>},
        {M::Snr, "snr", "SNR dB", false, true, true, read<&G::snr>},
        {M::MeanAbs, "mean_abs", "Mean |Δ|", true, false, true, read<&G::mean_abs>},
        {M::MaxAbs, "max_abs", "Max |Δ|", true, false, true, read<&G::max_abs>},
        {M::RelL2, "rel_l2", "Rel. L2", true, false, true, read<&G::rel_l2>},
        {M::Cosine, "cosine", "Cosine", false, false, true, read<&G::cosine>},
        {M::Sqnr, "sqnr", "SQNR dB", false, false, true, read<&G::sqnr>},
        {M::RmseSteps, "rmse_steps", "Steps", true, false, false, read<&G::rmse_steps>},
        {M::MaxAbsSteps, "max_abs_steps", "Max steps", true, false, false, read<&G::max_abs_steps>},
        {M::Saturation, "saturation", "Sat. %", true, false, false, read<&G::saturation>},
        {M::Top1, "top1", "Top-1", false, false, false, read<&G::top1_agreement>},
        {M::Top5, "top5", "Top-5", false, false, false, read<&G::top5_agreement>},
    };
    return catalog;
}

const MetricInfo& metricInfo(Metric metric) {
    return metricCatalog()[static_cast<std::size_t>(metric)]; // the catalog is in enum order
}

std::optional<MetricInfo> findMetric(const std::string& name) {
    for (const auto& m : metricCatalog())
        if (name == m.name)
            return m;
    return std::nullopt;
}

std::string metricNames() {
    std::string out;
    for (const auto& m : metricCatalog())
        out += (out.empty() ? "" : ", ") + std::string(m.name);
    return out;
}

std::optional<double> metricValue(const GapMetrics& m, const std::string& name) {
    const auto info = findMetric(name);
    return info ? info->value(m) : std::nullopt;
}

bool worseThan(const MetricInfo& metric, double value, double limit) {
    if (std::isnan(value))
        return true; // an undefined gap is never "fine"
    return metric.higher_is_worse ? value > limit : value < limit;
}

std::optional<double> rowMetric(const ComparisonRow& row, Metric metric) {
    const MetricInfo& info = metricInfo(metric);
    std::optional<double> worst;
    for (const auto& g : row.gaps) {
        const auto v = info.value(g);
        if (!v)
            continue;
        if (!worst || worseThan(info, *v, *worst))
            worst = v;
    }
    return worst;
}

std::optional<double> rowMetric(const ComparisonRow& row, const std::string& name) {
    const auto info = findMetric(name);
    return info ? rowMetric(row, info->id) : std::nullopt;
}

std::optional<double> thresholdOn(const MetricThreshold& threshold, const std::string& metric) {
    if (threshold.metric == metric)
        return threshold.value;
    // SNR and SQNR in dB are 10·log10(Σa² / Σd²); rel. L2 is sqrt(Σd² / Σa²).
    const auto inDb = [](const std::string& m) { return m == "snr" || m == "sqnr"; };
    if (inDb(threshold.metric) && inDb(metric))
        return threshold.value;
    if (inDb(threshold.metric) && metric == "rel_l2")
        return std::pow(10.0, -threshold.value / 20.0);
    if (threshold.metric == "rel_l2" && inDb(metric) && threshold.value > 0)
        return -20.0 * std::log10(threshold.value);
    return std::nullopt;
}

std::string describeThreshold(const MetricThreshold& threshold) {
    const auto info = findMetric(threshold.metric);
    if (!info)
        return threshold.metric;
    std::ostringstream out;
    out << info->label << (info->higher_is_worse ? " > " : " < ") << threshold.value;
    return out.str();
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
        error = "unknown metric '" + t.metric + "' (known: " + metricNames() + ")";
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
