#include "app/gui/session_status.h"

#include "core/compare/findings.h"
#include "core/compare/row_name.h"

#include <QCoreApplication>
#include <QLocale>

namespace gapscope {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("SessionStatus", text);
}

QString shownValue(double v) {
    return QLocale::c().toString(v, 'g', 4);
}

} // namespace

QString countOf(std::size_t n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

SessionStatus describeSession(const Session& s, std::optional<std::size_t> topIntroducer) {
    SessionStatus out;
    if (!s.comparison)
        return out;
    const auto& c = *s.comparison;
    std::size_t measured = 0;
    for (const auto& row : c.rows)
        measured += rowMetric(row, Metric::Mse).has_value() ? 1 : 0;
    const QString ops = countOf(c.rows.size(), tr("op"), tr("ops"));
    if (measured == c.rows.size())
        out.text = tr("%1 compared").arg(ops);
    else if (measured == 0)
        out.text =
            tr("%1 aligned, none with numbers%2")
                .arg(ops, s.debug_buffer_file ? QString() : tr(" (no debug buffer: no runtime tensors)"));
    else
        out.text = tr("%1 of %2 compared").arg(measured).arg(ops);
    out.text += QStringLiteral(", ") + countOf(c.coverage.size(), tr("coverage item"), tr("coverage items"));
    const QString threshold = QString::fromStdString(describeThreshold(s.threshold));
    if (s.first_divergence) {
        out.text += tr(", first divergence ⚑ at row %1").arg(s.first_divergence->row);
    } else if (measured > 0) {
        // Where the ⚑ would be: that nothing crossed, and the op that came closest.
        out.text += tr(", no op crosses %1").arg(threshold);
        if (const auto worst = worstRow(c, s.threshold)) {
            out.worst = worst->row;
            out.worstLink =
                tr("worst: row %1 (%2, %3)")
                    .arg(worst->row)
                    .arg(QString::fromStdString(displayOpName(c.rows[worst->row])),
                         // A STATS tap's: what its statistics prove, said as such.
                         (c.rows[worst->row].bounds ? QString::fromUtf8(boundSign(s.threshold.metric))
                                                    : QString()) +
                             shownValue(worst->value));
        }
    }
    if (topIntroducer && *topIntroducer < c.rows.size())
        out.text += tr(", error grows most ▲ at row %1 (%2)")
                        .arg(*topIntroducer)
                        .arg(QString::fromStdString(displayOpName(c.rows[*topIntroducer])));
    return out;
}

} // namespace gapscope
