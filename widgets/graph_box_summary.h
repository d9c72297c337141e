#pragma once

#include "core/compare/op_graph.h"
#include "core/session/session.h"
#include "widgets/graph_layout.h"

#include <QColor>
#include <QStringList>
#include <array>
#include <optional>

class QComboBox;

namespace gapscope {

// What one box of the graph shows (GraphView::recolour): the rows of the nodes
// it stands for, read once. A collapsed group is many nodes: the worst gap and
// the largest time of their rows, and whether a mark falls on one of them.
struct BoxSummary {
    std::optional<std::size_t> row; // its first node's row
    double worst_rel_l2 = -1;       // -1: no node has a number
    double share = -1;              // of the run's time, -1: none timed
    bool first = false, top = false, selected = false;
    QStringList names; // "name  (op)" per node
};

// The nodes carrying the marks: the first divergence, the op where the error
// grows most, the selection (each the node whose output its row compares).
struct BoxMarks {
    std::optional<std::size_t> first, top, selected;
};

// A node's name as its box shows it: at most 32 characters, the end kept
// ("…_proj_1" tells the layers apart).
QString boxName(const std::string& name);
// The text in a box: a collapsed group's label, or the node's op over its name.
QString boxLabel(const GraphLayout::Box& box, const OpGraph& graph);

BoxSummary summarizeBox(const GraphLayout::Box& box, const OpGraph& graph, const Session& session,
                        const BoxMarks& marks);

// The largest time share of any row, the time colours' full scale (0: none timed).
double largestShare(const Session& session);
// White (0) to dark orange (1): a time share against the largest.
QColor timeColour(double fraction);
// The graph's colour menu: gap, time, gap with a time bar, with these values.
void addColourChoices(QComboBox* box, const std::array<int, 3>& values);
// Red where B is worse, green where better, saturating at 20 units (20 dB of SNR).
QColor differenceColour(double worseBy);

} // namespace gapscope
