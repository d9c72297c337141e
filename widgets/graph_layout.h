#pragma once

#include "core/common/result.h"
#include "core/compare/op_graph.h"

#include <atomic>
#include <string>
#include <vector>

namespace gapscope {

// Where Graphviz's dot put an OpGraph: boxes for the nodes (a collapsed group
// is one box), spline control points for the edges, frames for the expanded
// groups. Coordinates in points, y growing downwards.
struct GraphLayout {
    struct Box {
        double x = 0, y = 0, w = 0, h = 0; // centre and size
        std::vector<std::size_t> nodes;    // OpGraph nodes it stands for (one, or a collapsed group's)
        int group = -1;                    // the group when collapsed
    };
    struct Edge {
        std::vector<double> xy;       // cubic Bézier control points: x0 y0 x1 y1 …
        std::size_t from = 0, to = 0; // box indices
    };
    struct Frame {
        double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        int group = -1;
    };
    std::vector<Box> boxes;
    std::vector<Edge> edges;
    std::vector<Frame> frames;
    double width = 0, height = 0;
};

struct GraphLayoutOptions {
    GraphLayoutOptions(); // dot: $GAPSCOPE_DOT, else "dot" on the PATH
    std::string dot;      // Graphviz's dot program
};

// Lays the graph out top to bottom with Graphviz's dot, groups in `collapsed` as
// one box each, the others framed as clusters. Runs on a background job. dot
// runs as a child process (`dot -Tdot`; the graph is built and its answer read
// with cgraph), so a cancel, read every 50 ms while it works, kills it: closing
// the window never waits for a layout. For a large graph dot's crossing
// minimisation is capped, which keeps a 5,000-node layout to seconds.
Result<GraphLayout> layoutOpGraph(const OpGraph& graph, const std::vector<bool>& collapsed,
                                  const std::atomic<bool>* cancelled = nullptr,
                                  const GraphLayoutOptions& options = {});

} // namespace gapscope
