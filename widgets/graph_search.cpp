#include "widgets/graph_search.h"

#include "core/compare/op_graph.h"

#include <QObject>

namespace gapscope {

bool nodeMatches(const OpGraphNode& g, const QString& text) {
    return QString::fromStdString(g.name).contains(text, Qt::CaseInsensitive) ||
           QString::fromStdString(g.op).contains(text, Qt::CaseInsensitive);
}

std::vector<std::size_t> matchingBoxes(const OpGraph& graph, const GraphLayout& layout, const QString& text) {
    std::vector<std::size_t> out;
    if (text.isEmpty())
        return out;
    for (std::size_t b = 0; b < layout.boxes.size(); ++b)
        for (auto node : layout.boxes[b].nodes)
            if (nodeMatches(graph.nodes[node], text)) {
                out.push_back(b);
                break;
            }
    return out;
}

QString matchLabel(std::size_t k, std::size_t n, const QString& name, const QString& op) {
    return QObject::tr("match %1 of %2: %3 (%4)").arg(k).arg(n).arg(name, op);
}

} // namespace gapscope
