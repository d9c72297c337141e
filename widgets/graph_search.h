#pragma once

#include "widgets/graph_layout.h"

#include <QString>
#include <cstddef>
#include <vector>

namespace gapscope {

struct OpGraph;
struct OpGraphNode;

// Graph search: the boxes showing a node whose FX name or op contains the text
// (case-insensitive), in box order, each box once; and "match k of n" as the
// search shows it.
bool nodeMatches(const OpGraphNode& node, const QString& text);
std::vector<std::size_t> matchingBoxes(const OpGraph& graph, const GraphLayout& layout, const QString& text);
QString matchLabel(std::size_t k, std::size_t n, const QString& name, const QString& op);

} // namespace gapscope
