#include "widgets/graph_box_summary.h"

#include "core/compare/metric_catalog.h"

#include <QComboBox>
#include <algorithm>
#include <cmath>

namespace gapscope {

QString boxName(const std::string& name) {
    const QString full = QString::fromStdString(name);
    return full.size() <= 32 ? full : QStringLiteral("…") + full.right(31);
}

QString boxLabel(const GraphLayout::Box& box, const OpGraph& graph) {
    if (box.group >= 0)
        return QString::fromStdString(graph.groups[static_cast<std::size_t>(box.group)].label);
    const auto& node = graph.nodes[box.nodes.front()];
    const QString op = QString::fromStdString(node.op);
    // The first conv is named "conv2d": its name once.
    return node.name == node.op ? op : op + QLatin1Char('\n') + boxName(node.name);
}

BoxSummary summarizeBox(const GraphLayout::Box& box, const OpGraph& graph, const Session& session,
                        const BoxMarks& marks) {
    BoxSummary s;
    const auto& rows = session.comparison->rows;
    const ComparisonLatency* latency = session.latency.get();
    for (auto n : box.nodes) {
        const auto& node = graph.nodes[n];
        s.names << QString::fromStdString(node.name + "  (" + node.op + ")");
        if (!node.row || *node.row >= rows.size())
            continue;
        s.row = s.row ? s.row : node.row;
        if (const auto rel = rowMetric(rows[*node.row], Metric::RelL2))
            s.worst_rel_l2 = std::max(s.worst_rel_l2, *rel);
        if (latency && *node.row < latency->rows.size() && latency->rows[*node.row].share)
            s.share = std::max(s.share, *latency->rows[*node.row].share);
        // A node shown alone with a tap of it (issue 58): its own value, from inside
        // the delegate, is what the box shows, and a click selects the tap's row.
        if (box.nodes.size() == 1 && node.tap_row && *node.tap_row < rows.size()) {
            s.row = node.tap_row;
            if (const auto rel = rowMetric(rows[*node.tap_row], Metric::RelL2))
                s.worst_rel_l2 = *rel;
            s.names.back() += QObject::tr("  ↳ tapped");
        }
        s.first = s.first || marks.first == n;
        s.top = s.top || marks.top == n;
        s.selected = s.selected || marks.selected == n;
    }
    return s;
}

double largestShare(const Session& session) {
    double largest = 0;
    if (const ComparisonLatency* l = session.latency.get())
        for (const auto& r : l->rows)
            largest = std::max(largest, r.share.value_or(0.0));
    return largest;
}

QColor timeColour(double fraction) {
    const double t = std::clamp(fraction, 0.0, 1.0);
    return QColor(255, static_cast<int>(255 - 165 * t), static_cast<int>(255 - 255 * t));
}

void addColourChoices(QComboBox* box, const std::array<int, 3>& values) {
    box->addItem(QObject::tr("Colour: gap"), values[0]);
    box->addItem(QObject::tr("Colour: time"), values[1]);
    box->addItem(QObject::tr("Colour: gap + time bar"), values[2]);
    box->setToolTip(QObject::tr("Fill by the gap (rel. L2), by the op's share of the run's time, or the gap "
                                "with a bar along the foot as long as the time share (against the largest)"));
}

QColor differenceColour(double worseBy) {
    const double t =
        std::clamp(std::isfinite(worseBy) ? worseBy / 20.0 : (worseBy > 0 ? 1.0 : -1.0), -1.0, 1.0);
    const int fade = static_cast<int>(255 * (1 - std::abs(t)));
    return t >= 0 ? QColor(255, fade, fade) : QColor(fade, 255, fade);
}

} // namespace gapscope
