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
    using F = MetricFormat;
    const char* steps = "√MSE in quantisation steps of the device tensor (its scale); the worst of the row's "
                        "outputs. About 0.29 is rounding alone.";
    const char* saturation = "Share of device values at the quantisation limits (qmin or qmax): clipping";
    // id, name, label, higher is worse, ExecuTorch's, charted, tabled, format, tip,
    // Markdown column, value.
    static const std::vector<MetricInfo> catalog = {
        {M::Mse, "mse", "MSE", true, true, true, true, F::Number, nullptr, "MSE", read<&G::mse>},
        {M::L1, "l1", "L1", true, true, true, true, F::Number, nullptr, "L1", read<&G::l1>},
        {M::Snr, "snr", "SNR dB", false, true, true, true, F::Number, nullptr, "SNR (dB)", read<&G::snr>},
        {M::MeanAbs, "mean_abs", "Mean |Δ|", true, false, true, false, F::Number, nullptr, nullptr,
         read<&G::mean_abs>},
        {M::MaxAbs, "max_abs", "Max |Δ|", true, false, true, true, F::Number, nullptr, "max abs",
         read<&G::max_abs>},
        {M::RelL2, "rel_l2", "Rel. L2", true, false, true, true, F::Number, nullptr, nullptr,
         read<&G::rel_l2>},
        {M::Cosine, "cosine", "Cosine", false, false, true, true, F::Precise, nullptr, "cosine",
         read<&G::cosine>},
        {M::Sqnr, "sqnr", "SQNR dB", false, false, true, false, F::Number, nullptr, nullptr, read<&G::sqnr>},
        {M::RmseSteps, "rmse_steps", "Steps", true, false, false, true, F::Number, steps, nullptr,
         read<&G::rmse_steps>},
        {M::MaxAbsSteps, "max_abs_steps", "Max steps", true, false, false, false, F::Number, nullptr, nullptr,
         read<&G::max_abs_steps>},
        {M::Saturation, "saturation", "Sat. %", true, false, false, true, F::Percent, saturation, nullptr,
         read<&G::saturation>},
        {M::Top1, "top1", "Top-1", false, false, false, false, F::Number, nullptr, nullptr,
         read<&G::top1_agreement>},
        {M::Top5, "top5", "Top-5", false, false, false, false, F::Number, nullptr, nullptr,
         read<&G::top5_agreement>},
#ifdef GAPSCOPE_PROBE_METRIC
        {M::Probe, "probe", "Probe", true, false, true, true, F::Number, nullptr, nullptr,
         read<&G::mean_abs>},
#endif
    };
    return catalog;
}

const char* boundSign(Metric metric) {
    return metricInfo(metric).higher_is_worse ? "≥ " : "≤ ";
}

const MetricInfo& metricInfo(Metric metric) {
    return metricCatalog()[metricIndex(metric)];
}

std::optional<MetricInfo> findMetric(const std::string& name) {
    for (const auto& m : metricCatalog())
        if (name == m.name)
            return m;
    return std::nullopt;
}

std::vector<Metric> metricsWhere(bool (*shown)(const MetricInfo&)) {
    std::vector<Metric> out;
    for (const auto& m : metricCatalog())
        if (shown(m))
            out.push_back(m.id);
    return out;
}

const std::vector<Metric>& summaryMetrics() {
    static const std::vector<Metric> metrics =
        metricsWhere([](const MetricInfo& m) { return m.summary_label != nullptr; });
    return metrics;
}

std::string metricNames() {
    std::string out;
    for (const auto& m : metricCatalog())
        out += (out.empty() ? "" : ", ") + std::string(m.name);
    return out;
}

std::optional<double> metricValue(const GapMetrics& m, Metric metric) {
    return metricInfo(metric).value(m);
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

std::optional<double> thresholdOn(const MetricThreshold& threshold, Metric metric) {
    if (threshold.metric == metric)
        return threshold.value;
    // SNR and SQNR in dB are 10·log10(Σa² / Σd²); rel. L2 is sqrt(Σd² / Σa²).
    const auto inDb = [](Metric m) { return m == Metric::Snr || m == Metric::Sqnr; };
    if (inDb(threshold.metric) && inDb(metric))
        return threshold.value;
    if (inDb(threshold.metric) && metric == Metric::RelL2)
        return std::pow(10.0, -threshold.value / 20.0);
    if (threshold.metric == Metric::RelL2 && inDb(metric) && threshold.value > 0)
        return -20.0 * std::log10(threshold.value);
    return std::nullopt;
}

std::string describeThreshold(const MetricThreshold& threshold) {
    const MetricInfo& info = metricInfo(threshold.metric);
    std::ostringstream out;
    out << info.label << (info.higher_is_worse ? " > " : " < ") << threshold.value;
    return out.str();
}

std::optional<MetricThreshold> parseThreshold(const std::string& text, std::string& error) {
    const auto eq = text.find('=');
    if (eq == std::string::npos) {
        error = "expected METRIC=VALUE, got '" + text + "'";
        return std::nullopt;
    }
    std::string name = text.substr(0, eq);
    for (auto& ch : name)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto info = findMetric(name);
    if (!info) {
        error = "unknown metric '" + name + "' (known: " + metricNames() + ")";
        return std::nullopt;
    }
    MetricThreshold t;
    t.metric = info->id;
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
