#include "widgets/graph_layout.h"

#include "widgets/graph_box_summary.h"

#include <QByteArray>
#include <QProcess>
#include <QStringList>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <graphviz/cgraph.h>
#include <map>
#include <mutex>
#include <set>

namespace gapscope {

namespace {

// cgraph (building the graph, reading dot's answer) keeps global state: one
// caller at a time. The layout itself runs in dot's own process, unlocked.
std::mutex& graphvizMutex() {
    static std::mutex m;
    return m;
}

Error layoutError(const std::string& what) {
    return Error{ErrorCode::Unsupported, "graph layout: " + what, {}};
}

// The graph as DOT text (cgraph writes it, quoting included).
std::string dotText(Agraph_t* g) {
    char* buffer = nullptr;
    std::size_t size = 0;
    FILE* out = open_memstream(&buffer, &size);
    if (!out)
        return {};
    agwrite(g, out);
    std::fclose(out);
    std::string text(buffer, size);
    std::free(buffer);
    return text;
}

// Runs `dot -Tdot` on the text and returns the graph it writes back, with the
// layout as attributes (pos, bb). Waits in short slices, reading `stopped`
// between them: a cancel kills dot at once, whatever the graph's size.
Result<std::string> runDot(const std::string& program, const std::string& text,
                           const std::function<bool()>& stopped) {
    QProcess dot;
    dot.start(QString::fromStdString(program), {QStringLiteral("-Tdot")});
    if (!dot.waitForStarted(10000))
        return layoutError("could not start Graphviz's '" + program + "' (" +
                           dot.errorString().toStdString() +
                           "): install the graphviz package, or name dot in GAPSCOPE_DOT");
    dot.write(text.data(), static_cast<qint64>(text.size()));
    dot.closeWriteChannel();
    while (!dot.waitForFinished(50)) {
        if (stopped()) {
            dot.kill();
            dot.waitForFinished(-1);
            return Error{ErrorCode::Cancelled, "graph layout cancelled", {}};
        }
        if (dot.state() == QProcess::NotRunning)
            break;
    }
    if (dot.exitStatus() != QProcess::NormalExit || dot.exitCode() != 0)
        return layoutError("'" + program + "' failed (exit " + std::to_string(dot.exitCode()) +
                           "): " + dot.readAllStandardError().trimmed().left(400).toStdString());
    const QByteArray out = dot.readAllStandardOutput();
    return std::string(out.constData(), static_cast<std::size_t>(out.size()));
}

const char* attribute(void* object, const char* name) {
    const char* value = agget(object, const_cast<char*>(name));
    return value ? value : "";
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

GraphLayoutOptions::GraphLayoutOptions() {
    const char* named = std::getenv("GAPSCOPE_DOT");
    dot = named && *named ? named : "dot";
}

namespace {

// The boxes of the layout, one per node except a collapsed group's nodes,
// which share one; returns each node's box.
std::vector<std::size_t> placeInBoxes(const OpGraph& graph, const std::vector<bool>& collapsed,
                                      GraphLayout& out) {
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
            // Two lines: the op, then the node's name (boxLabel).
            b.w = std::max(widthFor(graph.nodes[i].op), widthFor(boxName(graph.nodes[i].name).toStdString()));
            b.h = 40;
            boxOf[i] = out.boxes.size();
            out.boxes.push_back(b);
        }
    }
    return boxOf;
}

} // namespace

Result<GraphLayout> layoutOpGraph(const OpGraph& graph, const std::vector<bool>& collapsed,
                                  const std::atomic<bool>* cancelled, const GraphLayoutOptions& options) {
    const auto stopped = [&] { return cancelled && cancelled->load(); };
    if (stopped())
        return Error{ErrorCode::Cancelled, "graph layout cancelled", {}};
    GraphLayout out;
    const std::vector<std::size_t> boxOf = placeInBoxes(graph, collapsed, out);
    std::set<std::pair<std::size_t, std::size_t>> edges;
    for (const auto& [from, to] : graph.edges)
        if (boxOf[from] != boxOf[to])
            edges.emplace(boxOf[from], boxOf[to]);

    std::string text;
    std::set<int> clustered; // expanded groups, each a cluster subgraph
    const auto clusterName = [](int group) { return "cluster_" + std::to_string(group); };
    {
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
                    clustered.insert(group);
                    it->second = agsubg(g, const_cast<char*>(clusterName(group).c_str()), 1);
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
        for (const auto& [from, to] : edges) {
            agedge(g, nodes[from], nodes[to], nullptr, 1);
            out.edges.push_back({{}, from, to});
        }
        text = dotText(g);
        agclose(g);
    }
    if (text.empty())
        return layoutError("the graph could not be written for dot");

    // Graphviz runs in a process of its own: a cancel (a new session, the window
    // closing) kills it instead of waiting for a many-thousand-node layout.
    const auto laid = runDot(options.dot, text, stopped);
    if (!laid)
        return laid.error();

    std::lock_guard<std::mutex> lock(graphvizMutex());
    Agraph_t* g = agmemread(laid.value().c_str());
    if (!g)
        return layoutError("dot's output is not a graph cgraph can read");
    const auto fail = [&](const std::string& what) {
        agclose(g);
        return layoutError("dot's output lacks " + what);
    };
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    if (std::sscanf(attribute(g, "bb"), "%lf,%lf,%lf,%lf", &x0, &y0, &x1, &y1) != 4)
        return fail("the bounding box (bb)");
    out.width = x1 - x0;
    out.height = y1 - y0;
    const auto flipY = [&](double y) { return y1 - y; }; // Graphviz's y grows upwards
    std::vector<Agnode_t*> nodes(out.boxes.size());
    for (std::size_t b = 0; b < out.boxes.size(); ++b) {
        const std::string name = "n" + std::to_string(b);
        nodes[b] = agnode(g, const_cast<char*>(name.c_str()), 0);
        double x = 0, y = 0;
        if (!nodes[b] || std::sscanf(attribute(nodes[b], "pos"), "%lf,%lf", &x, &y) != 2)
            return fail("node " + name + " or its position");
        out.boxes[b].x = x - x0;
        out.boxes[b].y = flipY(y);
    }
    for (auto& edge : out.edges) {
        Agedge_t* e = agedge(g, nodes[edge.from], nodes[edge.to], nullptr, 0);
        if (!e)
            return fail("the edge n" + std::to_string(edge.from) + " -> n" + std::to_string(edge.to));
        // "e,x,y s,x,y x,y x,y …": the control points; arrow ends skipped.
        std::string pos = attribute(e, "pos");
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
                edge.xy.push_back(x - x0);
                edge.xy.push_back(flipY(y));
            }
            p += used;
        }
    }
    for (const int group : clustered) {
        Agraph_t* sub = agsubg(g, const_cast<char*>(clusterName(group).c_str()), 0);
        double a = 0, b = 0, c = 0, d = 0;
        if (sub && std::sscanf(attribute(sub, "bb"), "%lf,%lf,%lf,%lf", &a, &b, &c, &d) == 4)
            out.frames.push_back({a - x0, flipY(d), c - x0, flipY(b), group});
    }
    agclose(g);
    if (stopped())
        return Error{ErrorCode::Cancelled, "graph layout cancelled", {}};
    return out;
}

} // namespace gapscope
