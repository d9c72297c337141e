#include "widgets/op_cell_text.h"

#include "core/compare/metric_catalog.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>

namespace gapscope::op_cell {

QString joined(const std::vector<std::string>& items, const char* sep) {
    QStringList l;
    for (const auto& i : items)
        l << QString::fromStdString(i);
    return l.join(QString::fromLatin1(sep));
}

// Per-output texts of a row: one entry when every output shares it ("… ×3"), so a
// split's three identical dtypes do not push the numbers off the table.
QString perOutput(const std::vector<std::string>& items) {
    if (items.size() > 1 &&
        std::all_of(items.begin(), items.end(), [&](const auto& i) { return i == items[0]; }))
        return QString::fromStdString(items[0]) + QStringLiteral(" ×") + QString::number(items.size());
    return joined(items, "; ");
}

// "float32 vs uint8 (dequantized)" as "f32 vs u8 (dq)": the column stays
// narrow; the tooltip says it whole.
QString shortDtypes(QString text) {
    static const QRegularExpression type(QStringLiteral("\\b(bfloat|float|uint|int)(\\d+)\\b"));
    static const std::map<QString, QString> prefix{{QStringLiteral("bfloat"), QStringLiteral("bf")},
                                                   {QStringLiteral("float"), QStringLiteral("f")},
                                                   {QStringLiteral("uint"), QStringLiteral("u")},
                                                   {QStringLiteral("int"), QStringLiteral("i")}};
    QString out;
    qsizetype from = 0;
    for (auto it = type.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out += text.mid(from, m.capturedStart() - from) + prefix.at(m.captured(1)) + m.captured(2);
        from = m.capturedEnd();
    }
    out += text.mid(from);
    return out.replace(QStringLiteral(" (dequantized)"), QStringLiteral(" (dq)"));
}

QString handles(const HandleTuple& h) {
    QStringList l;
    for (auto x : h)
        l << QString::number(x);
    return l.join(QLatin1Char(','));
}

QString wrapped(const QString& text) {
    return QStringLiteral("<qt>") + text.toHtmlEscaped() + QStringLiteral("</qt>");
}

QString number(double v) {
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QString::number(v, 'g', 3);
}

// A metric's number, written as the catalog says (MetricFormat).
QString metricNumber(Metric metric, double value, bool zeros) {
    // 0/0: both tensors all zero (an integer mask, a bool `gt` that is all
    // false). ExecuTorch's SNR is NaN there; the two agree exactly.
    if (std::isnan(value) && zeros)
        return QStringLiteral("0/0");
    switch (metricInfo(metric).format) {
    case MetricFormat::Precise:
        if (std::isfinite(value))
            return QString::number(value, 'g', 6);
        break;
    case MetricFormat::Percent: return QString::number(100.0 * value, 'g', 3);
    case MetricFormat::Number: break;
    }
    return number(value);
}

// A metric's cell. A bound that a STATS tap's statistics prove
// (ComparisonRow::bounds) says which side it is: "≤" a value that may be
// better, "≥" an error that may be larger.
QString metricText(Metric metric, std::optional<double> value, bool measured, bool zeros, bool bound) {
    if (!value)
        return measured ? QStringLiteral("—") : QStringLiteral("…");
    const QString text = metricNumber(metric, *value, zeros);
    if (!bound || !std::isfinite(*value))
        return text;
    return QString::fromUtf8(boundSign(metric)) + text;
}

// What a tap row is: ExecuTorch's tap of an op inside a delegate (issue 58).
QString tapTip(const ComparisonRow& r) {
    const CaptureTap& t = r.tap->spec;
    QString tip =
        QCoreApplication::translate("OpTableModel", "Tap of %1 (%2), program output %3, %4")
            .arg(QString::fromStdString(t.node_name), QString::fromStdString(t.op_target))
            .arg(t.output_index)
            .arg(t.fullTensor() ? QCoreApplication::translate("OpTableModel", "the whole tensor")
                                : QCoreApplication::translate("OpTableModel", "reduced on the device (%1)")
                                      .arg(QString::fromStdString(t.reducer)));
    if (t.module_path && !t.module_path->empty())
        tip += QCoreApplication::translate("OpTableModel", "; module %1")
                   .arg(QString::fromStdString(*t.module_path));
    if (t.module_class)
        tip += QStringLiteral(" (%1)").arg(QString::fromStdString(*t.module_class));
    if (r.inside)
        tip += QCoreApplication::translate("OpTableModel", ". Inside the delegate of row %1").arg(*r.inside);
    if (r.bounds)
        tip += QCoreApplication::translate(
            "OpTableModel", ". Its numbers are what its statistics prove: bounds, not measurements");
    return tip;
}

} // namespace gapscope::op_cell
