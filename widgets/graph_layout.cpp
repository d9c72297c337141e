#include "widgets/graph_layout.h"

#include <algorithm>
#include <cstdio>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <map>
#include <mutex>
#include <set>

namespace gapscope {

namespace {

std::mutex& graphvizMutex() {
    static std::mutex m;
    return m;
}

// One context for the process; its plugins (the dot layout) come from
// Graphviz's own configuration, written when libgvc6 is installed.
GVC_t* context() {
    static GVC_t* gvc = gvContext();
    return gvc;
}

void set(void* object, const char* name, const std::string& value) {
    agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

std::string inches(double points) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", points / 72.0);
    return buf;
}

// A box wide enough for its label at about 6.5 points a character.
double widthFor(const std::string& label) {
    return std::clamp(24.0 + 6.5 * static_cast<double>(label.size()), 60.0, 260.0);
}

} // namespace

Result<GraphLayout> layoutOpGraph(const OpGraph& graph, const std::vector<bool>& collapsed,
                                  const std::atomic<bool>* cancelled) {
    const auto stopped = [&] { return cancelled && cancelled->load(); };
    if (stopped())
        return Error{ErrorCode::Cancelled, "graph layout cancelled", {}};
    GraphLayout out;
    // Boxes: one per node, except a collapsed group's nodes share one.
    std::vector<std::size_t> boxOf(graph.nodes.size());
    std::map<int, std::size_t> groupBox;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const int g = graph.nodes[i].group;
        if (g >= 0 && static_cast<std::size_t>(g) < collapsed.size() &&
            collapsed[static_cast<std::size_t>(g)]) {
            auto [it, fresh] = groupBox.emplace(g, out.boxes.size());
            if (fresh) {
                GraphLayout::Box b;
                b.group = g;
                b.w = widthFor(graph.groups[static_cast<std::size_t>(g)].label);
                b.h = 40;
                out.boxes.push_back(b);
            }
            out.boxes[it->second].nodes.push_back(i);
            boxOf[i] = it->second;
        } else {
            GraphLayout::Box b;
            b.nodes = {i};
            b.w = widthFor(graph.nodes[i].op);
            b.h = 30;
            boxOf[i] = out.boxes.size();
            out.boxes.push_back(b);
        }
    }
    std::set<std::pair<std::size_t, std::size_t>> edges;
    for (const auto& [from, to] : graph.edges)
        if (boxOf[from] != boxOf[to])
            edges.emplace(boxOf[from], boxOf[to]);

    std::lock_guard<std::mutex> lock(graphvizMutex());
    Agraph_t* g = agopen(const_cast<char*>("ops"), Agstrictdirected, nullptr);
    set(g, "rankdir", "TB");
    set(g, "nodesep", "0.25");
    set(g, "ranksep", "0.35");
    if (out.boxes.size() > 800) {
        // dot's crossing minimisation grows fast with size: a few passes only.
        set(g, "mclimit", "0.2");
        set(g, "nslimit", "2");
        set(g, "nslimit1", "2");
        set(g, "remincross", "false");
        set(g, "searchsize", "10");
    }
    std::vector<Agnode_t*> nodes(out.boxes.size());
    std::map<int, Agraph_t*> clusters;
    for (std::size_t b = 0; b < out.boxes.size(); ++b) {
        const auto& box = out.boxes[b];
        const int group = box.group < 0 && !box.nodes.empty() ? graph.nodes[box.nodes.front()].group : -1;
        Agraph_t* parent = g;
        if (group >= 0) {
            auto [it, fresh] = clusters.emplace(group, nullptr);
            if (fresh) {
                it->second = agsubg(g, const_cast<char*>(("cluster_" + std::to_string(group)).c_str()), 1);
                set(it->second, "margin", "12");
            }
            parent = it->second;
        }
        nodes[b] = agnode(parent, const_cast<char*>(("n" + std::to_string(b)).c_str()), 1);
        set(nodes[b], "shape", "box");
        set(nodes[b], "fixedsize", "true");
        set(nodes[b], "width", inches(box.w));
        set(nodes[b], "height", inches(box.h));
        set(nodes[b], "label", "");
    }
    std::vector<Agedge_t*> agedges;
    for (const auto& [from, to] : edges) {
        agedges.push_back(agedge(g, nodes[from], nodes[to], nullptr, 1));
        out.edges.push_back({{}, from, to});
    }
    if (gvLayout(context(), g, "dot") != 0) {
        agclose(g);
        return Error{ErrorCode::Unsupported,
                     "Graphviz could not lay the graph out (is its dot layout plugin configured? `dot -c` "
                     "registers it)",
                     {}};
    }
    attach_attrs(g); // the layout as attributes: pos, bb
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    std::sscanf(agget(g, const_cast<char*>("bb")), "%lf,%lf,%lf,%lf", &x0, &y0, &x1, &y1);
    out.width = x1 - x0;
    out.height = y1 - y0;
    const auto flipY = [&](double y) { return y1 - y; }; // Graphviz's y grows upwards
    for (std::size_t b = 0; b < out.boxes.size(); ++b) {
        double x = 0, y = 0;
        std::sscanf(agget(nodes[b], const_cast<char*>("pos")), "%lf,%lf", &x, &y);
        out.boxes[b].x = x - x0;
        out.boxes[b].y = flipY(y);
    }
    for (std::size_t e = 0; e < agedges.size(); ++e) {
        // "e,x,y s,x,y x,y x,y …": the control points; arrow ends skipped.
        std::string pos = agget(agedges[e], const_cast<char*>("pos"));
        std::replace(pos.begin(), pos.end(), ';', ' ');
        const char* p = pos.c_str();
        while (*p) {
            while (*p == ' ')
                ++p;
            if (!*p)
                break;
            const bool endpoint = (p[0] == 'e' || p[0] == 's') && p[1] == ',';
            if (endpoint)
                p += 2;
            double x = 0, y = 0;
            int used = 0;
            if (std::sscanf(p, "%lf,%lf%n", &x, &y, &used) != 2)
                break;
            if (!endpoint) {
                out.edges[e].xy.push_back(x - x0);
                out.edges[e].xy.push_back(flipY(y));
            }
            p += used;
        }
    }
    for (const auto& [group, sub] : clusters) {
        double a = 0, b = 0, c = 0, d = 0;
        if (std::sscanf(agget(sub, const_cast<char*>("bb")), "%lf,%lf,%lf,%lf", &a, &b, &c, &d) == 4)
            out.frames.push_back({a - x0, flipY(d), c - x0, flipY(b), group});
    }
    gvFreeLayout(context(), g);
    agclose(g);
    if (stopped())
        return Error{ErrorCode::Cancelled, "graph layout cancelled", {}};
    return out;
}

} // namespace gapscope
