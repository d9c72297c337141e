#include "core/backends/arm_delegate_map.h"

#include "core/backends/arm_layout.h"
#include "core/metrics/operand.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>

namespace gapscope {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kAmbiguous = kNone - 1;

// Rows joined into groups, each root knowing how many TOSA ops its group has.
class RowGroups {
public:
    explicit RowGroups(std::vector<std::size_t> ops) : m_parent(ops.size()), m_ops(std::move(ops)) {
        std::iota(m_parent.begin(), m_parent.end(), 0);
    }
    std::size_t root(std::size_t r) {
        while (m_parent[r] != r)
            r = m_parent[r] = m_parent[m_parent[r]];
        return r;
    }
    bool join(std::size_t a, std::size_t b) {
        a = root(a), b = root(b);
        if (a == b)
            return false;
        if (b < a)
            std::swap(a, b);
        m_parent[b] = a;
        m_ops[a] += m_ops[b];
        return true;
    }
    std::size_t ops(std::size_t r) { return m_ops[root(r)]; }

private:
    std::vector<std::size_t> m_parent, m_ops;
};

// A trace's target ("aten.conv2d.default") is the graph node's target
// ("torch.ops.aten.conv2d.default") without its namespace.
bool sameTarget(const std::string& graphTarget, const std::string& traceTarget) {
    if (graphTarget == traceTarget)
        return true;
    const std::size_t n = traceTarget.size();
    return !traceTarget.empty() && graphTarget.size() > n &&
           graphTarget.compare(graphTarget.size() - n, n, traceTarget) == 0 &&
           graphTarget[graphTarget.size() - n - 1] == '.';
}

// A node that permutes its input's axes (aten.permute, transpose, t,
// movedim, swapaxes, and their _copy forms).
bool isPermutation(const std::string& target) {
    for (const char* op : {".permute.", ".permute_copy.", ".transpose.", ".transpose_copy.", ".t.",
                           ".t_copy.", ".movedim.", ".swapaxes.", ".swapdims."})
        if (target.find(op) != std::string::npos)
            return true;
    return false;
}

const std::vector<std::int64_t>* outputShape(const CaptureRecord& record) {
    if (record.outputs.size() != 1 || record.outputs.front().kind != CaptureValue::Kind::Tensor ||
        !record.outputs.front().resolved)
        return nullptr;
    return &record.outputs.front().resolved->shape;
}

// Every node reachable from `starts` along `next`, each visited once;
// `visit(node)` says whether to go on past it. The walks this map makes (an
// op's neighbours through ops with no row, the rows feeding a row through rows
// with no op) are all this one, bounded by the node count.
template <typename Visit>
void walk(const std::vector<std::vector<std::size_t>>& next, const std::vector<std::size_t>& starts,
          Visit visit) {
    std::vector<char> seen(next.size(), 0);
    std::vector<std::size_t> stack(starts.begin(), starts.end());
    while (!stack.empty()) {
        const std::size_t at = stack.back();
        stack.pop_back();
        if (seen[at])
            continue;
        seen[at] = 1;
        if (visit(at))
            stack.insert(stack.end(), next[at].begin(), next[at].end());
    }
}

std::string traceText(const ArmDebugEvent& e) {
    std::string s;
    std::set<std::string> seen;
    for (const auto& node : e.trace)
        if (seen.insert(node.name).second)
            s += (s.empty() ? "" : ", ") + node.name;
    return s.empty() ? e.aten_node : s;
}

} // namespace

ArmDelegateMap armDelegateMap(const TosaRun& run, const AotCapture& capture, const ExportGraph* graph,
                              const std::vector<std::int64_t>* delegateHandles, const AotCapture* naming) {
    const ArmDebugMap& map = run.debug;
    ArmDelegateMap out;
    out.mapping.backend = run.backend;
    const auto& records = capture.records;
    const std::size_t rows = records.size(), ops = run.ops.size();
    const auto rowName = [&](std::size_t r) -> const std::string& {
        static const std::string none = "?";
        return records[r].ops.empty() ? none : records[r].ops.front();
    };

    // Indexes: a node's row (kAmbiguous when two rows hold it), the graph's
    // nodes, debug.json's entries and the run's ops by name. A graph whose nodes
    // carry debug handles ties a node to the record of its handle; ExecuTorch
    // 1.5's ETRecord keeps none in its exported program, so there the
    // capture's op names do (the exported program's node names).
    std::unordered_map<std::string, std::size_t> rowOfName;
    const auto tieName = [&](const std::string& name, std::size_t r) {
        const auto [it, fresh] = rowOfName.emplace(name, r);
        if (!fresh && it->second != r)
            it->second = kAmbiguous;
    };
    // Each handle's row (kAmbiguous when two rows hold it).
    std::unordered_map<std::int64_t, std::size_t> rowOfHandle;
    for (std::size_t r = 0; r < rows; ++r)
        for (const auto h : records[r].debug_handle) {
            const auto [it, fresh] = rowOfHandle.emplace(h, r);
            if (!fresh && it->second != r)
                it->second = kAmbiguous;
        }
    const bool handled = graph && std::any_of(graph->nodes.begin(), graph->nodes.end(),
                                              [](const GraphNode& n) { return !n.debug_handles.empty(); });
    if (handled) {
        for (const auto& n : graph->nodes)
            for (const auto h : n.debug_handles)
                if (const auto r = rowOfHandle.find(h); r != rowOfHandle.end())
                    tieName(n.name, r->second);
    } else if (!naming || naming == &capture) {
        for (std::size_t r = 0; r < rows; ++r)
            for (const auto& op : records[r].ops)
                tieName(op, r);
    } else {
        // The program's own capture names the nodes; the compared one (a float
        // model's, under the same handles) holds the rows.
        for (const auto& named : naming->records) {
            std::size_t row = kNone;
            for (const auto h : named.debug_handle)
                if (const auto it = rowOfHandle.find(h); it != rowOfHandle.end())
                    row = row == kNone || row == it->second ? it->second : kAmbiguous;
            if (row != kNone)
                for (const auto& op : named.ops)
                    tieName(op, row);
        }
    }
    std::unordered_map<std::string, const GraphNode*> nodeOf;
    if (graph)
        for (const auto& n : graph->nodes)
            nodeOf.emplace(n.name, &n);
    std::unordered_map<std::string, const ArmDebugEvent*> eventOf;
    for (const auto& e : map.events)
        eventOf.emplace(e.tosa_tensor, &e);
    std::unordered_map<std::string, std::size_t> opOf;
    for (std::size_t k = 0; k < ops; ++k)
        opOf.emplace(run.ops[k].output, k);
    std::vector<std::vector<std::size_t>> producers(ops), consumers(ops);
    for (std::size_t k = 0; k < ops; ++k)
        for (const auto& input : run.ops[k].inputs)
            if (const auto p = opOf.find(input); p != opOf.end() && p->second != k) {
                producers[k].push_back(p->second);
                consumers[p->second].push_back(k);
            }

    // Rows feeding each row, from the reference graph's edges.
    std::vector<std::vector<std::size_t>> rowInputs(rows);
    if (graph) {
        std::unordered_map<std::string, std::size_t> producerRow;
        for (const auto& n : graph->nodes)
            if (const auto r = rowOfName.find(n.name); r != rowOfName.end() && r->second < kAmbiguous)
                for (const auto& t : n.output_tensors)
                    producerRow.emplace(t, r->second);
        for (const auto& n : graph->nodes) {
            const auto r = rowOfName.find(n.name);
            if (r == rowOfName.end() || r->second >= kAmbiguous)
                continue;
            auto& in = rowInputs[r->second];
            for (const auto& t : n.input_tensors)
                if (const auto p = producerRow.find(t);
                    p != producerRow.end() && p->second != r->second &&
                    std::find(in.begin(), in.end(), p->second) == in.end())
                    in.push_back(p->second);
        }
    }
    std::set<std::int64_t> delegated;
    if (delegateHandles)
        delegated.insert(delegateHandles->begin(), delegateHandles->end());
    const auto inDelegate = [&](std::size_t r) {
        return !delegateHandles || std::all_of(records[r].debug_handle.begin(), records[r].debug_handle.end(),
                                               [&](std::int64_t h) { return delegated.count(h) > 0; });
    };

    // 1. Each op's row: the newest node of its trace that is a node of the
    // reference graph. A model quantised with PT2E was exported twice; its
    // trace also names the first export's nodes, whose names the second may
    // give other nodes ("add_1"), so the newest match wins.
    std::vector<std::size_t> rowOfOp(ops, kNone);
    std::vector<std::string> why(ops);
    std::vector<char> ambiguous(ops, 0); // its node is an op of several rows: never guessed
    for (std::size_t k = 0; k < ops; ++k) {
        const auto e = eventOf.find(run.ops[k].output);
        if (e == eventOf.end()) {
            why[k] = "debug.json has no entry for it";
            continue;
        }
        for (const auto& node : e->second->trace) {
            const auto r = rowOfName.find(node.name);
            if (r == rowOfName.end())
                continue;
            if (graph) {
                const auto g = nodeOf.find(node.name);
                if (g == nodeOf.end() || !sameTarget(g->second->target, node.target))
                    continue;
            }
            if (r->second == kAmbiguous) {
                ambiguous[k] = 1;
                why[k] = "its node '" + node.name + "' is an op of several of the capture's rows";
            } else {
                rowOfOp[k] = r->second;
            }
            break;
        }
        if (rowOfOp[k] == kNone && why[k].empty())
            why[k] = "its trace (" + traceText(*e->second) + ") names no node of the reference graph";
    }

    // 2. Ops whose trace names only nodes the Arm passes made: the row of their
    // neighbours (through other such ops), or the one node between them that
    // has no op of its own.
    std::vector<char> ownOps(rows, 0);
    for (std::size_t k = 0; k < ops; ++k)
        if (rowOfOp[k] < kAmbiguous)
            ownOps[rowOfOp[k]] = 1;
    const std::vector<std::size_t> traced = rowOfOp;
    // The traced rows around op k along `next`, through ops with no row.
    const auto around = [&](std::size_t k, const std::vector<std::vector<std::size_t>>& next) {
        std::set<std::size_t> found;
        walk(next, next[k], [&](std::size_t n) {
            if (traced[n] >= kAmbiguous)
                return true;
            found.insert(traced[n]);
            return false;
        });
        return found;
    };
    for (std::size_t k = 0; k < ops; ++k) {
        if (traced[k] != kNone || ambiguous[k])
            continue;
        const std::set<std::size_t> before = around(k, producers), after = around(k, consumers);
        std::set<std::size_t> both = before;
        both.insert(after.begin(), after.end());
        if (both.size() == 1) {
            rowOfOp[k] = *both.begin();
            continue;
        }
        std::vector<std::size_t> between;
        for (std::size_t r = 0; r < rows; ++r) {
            if (ownOps[r] || !inDelegate(r))
                continue;
            const bool fed = std::any_of(rowInputs[r].begin(), rowInputs[r].end(),
                                         [&](std::size_t i) { return before.count(i) > 0; });
            const bool feeds =
                after.empty() || std::any_of(after.begin(), after.end(), [&](std::size_t a) {
                    return std::find(rowInputs[a].begin(), rowInputs[a].end(), r) != rowInputs[a].end();
                });
            if (fed && feeds)
                between.push_back(r);
        }
        if (between.size() == 1) {
            rowOfOp[k] = between.front();
            continue;
        }
        std::string rowsAround;
        for (const auto r : both)
            rowsAround += (rowsAround.empty() ? "" : ", ") + rowName(r);
        why[k] += "; the rows around it (" + (rowsAround.empty() ? std::string("none") : rowsAround) +
                  ") do not tell which node it computes";
    }

    // 3. Groups.
    std::vector<std::size_t> opCount(rows, 0);
    for (std::size_t k = 0; k < ops; ++k)
        if (rowOfOp[k] < kAmbiguous)
            ++opCount[rowOfOp[k]];
    RowGroups groups(opCount);
    std::map<std::size_t, std::set<std::string>> reasons; // by a row of the group
    // The nearest rows with ops of their own that feed `r`, through rows without.
    const auto nearestFeeding = [&](std::size_t r) {
        std::set<std::size_t> found;
        walk(rowInputs, rowInputs[r], [&](std::size_t at) {
            if (opCount[at] == 0)
                return true;
            found.insert(at);
            return false;
        });
        return found;
    };
    const auto feeds = [&](std::size_t from, std::size_t to) { // `from` is an ancestor of `to`
        bool found = false;
        walk(rowInputs, rowInputs[to], [&](std::size_t at) { return !(found = found || at == from); });
        return found;
    };
    if (graph)
        for (std::size_t k = 0; k < ops; ++k) {
            const std::size_t n = rowOfOp[k];
            if (n >= kAmbiguous)
                continue;
            for (const std::size_t p : producers[k]) {
                const std::size_t m = rowOfOp[p];
                if (m >= kAmbiguous || groups.root(m) == groups.root(n))
                    continue;
                const std::set<std::size_t> nearest = nearestFeeding(n);
                if (std::any_of(nearest.begin(), nearest.end(),
                                [&](std::size_t a) { return groups.root(a) == groups.root(m); }))
                    continue;
                const std::string reason = "the Arm backend reordered them (" + rowName(n) + "'s " +
                                           run.ops[k].op + " reads " + rowName(m) + "'s '" +
                                           run.ops[p].output + "')";
                if (feeds(n, m)) {
                    groups.join(n, m);
                } else {
                    for (const std::size_t a : nearest)
                        groups.join(n, a);
                }
                reasons[n].insert(reason);
            }
        }
    // A row without ops of its own, of the shape of the one row feeding it. A
    // node's shape is the naming capture's where the compared one holds no
    // value for it (a float model's row with no counterpart in the program):
    // the node is the same, and so is its fold.
    const auto nodeShape = [&](std::size_t r) {
        const auto* shape = outputShape(records[r]);
        if (shape || !naming || naming == &capture)
            return shape;
        for (const auto& named : naming->records)
            if (named.debug_handle == records[r].debug_handle)
                return outputShape(named);
        return shape;
    };
    for (std::size_t r = 0; r < rows; ++r) {
        if (opCount[r] > 0 || !inDelegate(r) || rowInputs[r].size() != 1)
            continue;
        const std::size_t p = rowInputs[r].front();
        const auto* shape = nodeShape(r);
        const auto* fedShape = nodeShape(p);
        if (groups.ops(p) == 0 || !shape || !fedShape || *shape != *fedShape)
            continue;
        groups.join(r, p);
        reasons[r].insert(rowName(r) + " has no TOSA op of its own (folded into " + rowName(p) + "'s)");
    }

    // 4. Each group's last op maps to every handle of the group.
    std::vector<std::size_t> lastOp(rows, kNone);
    for (std::size_t k = 0; k < ops; ++k)
        if (rowOfOp[k] < kAmbiguous)
            lastOp[groups.root(rowOfOp[k])] = k;
    std::map<std::size_t, std::vector<std::size_t>> members;
    for (std::size_t r = 0; r < rows; ++r)
        if (lastOp[groups.root(r)] != kNone)
            members[groups.root(r)].push_back(r);
    // Which TRANSPOSEs compute their node (a permute of the model) and which
    // the backend added for layout (arm_layout.h).
    std::vector<TransposeRole> roles(ops, TransposeRole::Unknown);
    for (std::size_t k = 0; k < ops; ++k) {
        if (!graph || rowOfOp[k] >= kAmbiguous)
            continue;
        const auto& nodes = records[rowOfOp[k]].ops;
        const bool permutes = std::any_of(nodes.begin(), nodes.end(), [&](const std::string& name) {
            const auto n = nodeOf.find(name);
            return n != nodeOf.end() && isPermutation(n->second->target);
        });
        roles[k] = permutes ? TransposeRole::NodesOwn : TransposeRole::Layout;
    }
    const std::vector<AxisOrder> orders = tosaAxisOrders(run, roles);
    std::map<std::size_t, std::vector<std::int64_t>> handlesOf;
    for (const auto& [root, group] : members) {
        std::set<std::int64_t> handles;
        for (const auto r : group)
            handles.insert(records[r].debug_handle.begin(), records[r].debug_handle.end());
        handlesOf[root] = std::vector<std::int64_t>(handles.begin(), handles.end());
        const std::size_t k = lastOp[root];
        const TosaRunOp& last = run.ops[k];
        // Compared with the group's last row, as ExecuTorch compares a fused group.
        const auto* reference = outputShape(records[group.back()]);
        const AxisOrder& order = orders[k];
        std::optional<std::string> problem;
        std::optional<std::vector<std::int64_t>> axisOrder;
        // The group is compared at its last op with its last row's value: that
        // holds only if the op's own row is the last row or feeds it (a fold,
        // a reorder). A group that merged rows of
        // unrelated branches (the key and the value projections of an
        // attention, through a LayerNorm's decomposition) would otherwise pair
        // one branch's tensor with the other's value: a wrong number, not a gap.
        const std::size_t own = rowOfOp[k], lastRow = group.back();
        if (own != lastRow && !feeds(own, lastRow)) {
            problem = "its TOSA tensor '" + last.output + "' is " + rowName(own) +
                      "'s, which does not feed " + rowName(lastRow) +
                      ", the group's last row, whose value the group is compared with: the " +
                      "rows grouped cannot be compared as one";
        } else if (!order) {
            problem = "the layout of its TOSA tensor '" + last.output + "' (" + last.op +
                      ") against torch's cannot be told from the graph";
        } else if (!keepsElementOrder(*order, last.shape)) {
            std::vector<std::int64_t> permuted;
            if (reference && reference->size() == order->size())
                for (const auto a : *order)
                    permuted.push_back((*reference)[static_cast<std::size_t>(a)]);
            if (reference && permuted == last.shape) {
                axisOrder = *order;
            } else {
                std::string orderText;
                for (const auto a : *order)
                    orderText += (orderText.empty() ? "" : ",") + std::to_string(a);
                problem = "its TOSA tensor '" + last.output + "' is " + shapeText(last.shape) +
                          " in the axis order (" + orderText + ") of torch's, which does not lay onto the " +
                          "reference's " + (reference ? shapeText(*reference) : std::string("value"));
            }
        }
        for (const auto r : group) {
            if (problem)
                out.runtime_problems[r] = *problem;
            else if (axisOrder)
                out.axis_orders[r] = *axisOrder;
        }
        if (group.size() > 1) {
            std::string names, because;
            std::set<std::string> all;
            for (const auto r : group) {
                names += (names.empty() ? "" : ", ") + rowName(r);
                if (const auto it = reasons.find(r); it != reasons.end())
                    all.insert(it->second.begin(), it->second.end());
            }
            for (const auto& w : all)
                because += (because.empty() ? "" : "; ") + w;
            out.notes.push_back(names + ": compared as one, at the TOSA tensor '" + last.output +
                                "': " + because);
        }
    }
    for (std::size_t k = 0; k < ops; ++k) {
        const std::size_t r = rowOfOp[k];
        if (r >= kAmbiguous)
            out.unmapped.emplace_back(run.ops[k].output, why[k]);
        else if (lastOp[groups.root(r)] == k)
            out.mapping.identifiers.emplace_back(run.ops[k].output, handlesOf[groups.root(r)]);
        else
            out.inside.emplace_back(run.ops[k].output, rowName(r));
    }
    return out;
}

} // namespace gapscope
