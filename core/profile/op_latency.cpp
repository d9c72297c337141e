#include "core/profile/op_latency.h"

#include "core/backends/backend_conventions.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

namespace gapscope {
namespace {

// A kernel's own event, nested in its instruction's OPERATOR_CALL.
bool kernelEvent(const ProfiledEvent& e) {
    return !e.is_delegated_op && e.name.rfind("native_call_", 0) == 0;
}

// A delegate's tensor of a node, "<node>@<output>": the node.
std::string nodeOfDelegateTensor(const std::string& name) {
    return std::string(delegateTensorName(name).node);
}

bool timed(const ProfiledEvent& e) {
    return e.perf.has_value();
}

// The block's events by instruction, and what each delegate call logged: built
// once, so that a row costs a lookup, not a pass over every event (50,000 QNN
// ops log 100,000 events in one call).
class BlockIndex {
public:
    explicit BlockIndex(const ProfiledBlock& block) : m_block(block) {
        for (std::size_t i = 0; i < block.events.size(); ++i)
            m_byInstruction[block.events[i].instruction_id].push_back(i);
    }
    const ProfiledBlock& block() const { return m_block; }
    const std::vector<std::size_t>& of(std::int32_t instruction) const {
        static const std::vector<std::size_t> none;
        const auto it = m_byInstruction.find(instruction);
        return it == m_byInstruction.end() ? none : it->second;
    }

    // The instruction's outermost event: OPERATOR_CALL or DELEGATE_CALL, else its
    // longest undelegated timed event. Found once per instruction: every row of a
    // delegate call asks for the same one.
    std::optional<std::size_t> outer(std::int32_t instruction) {
        const auto [cached, added] = m_outer.try_emplace(instruction);
        if (!added)
            return cached->second;
        std::optional<std::size_t> best;
        for (const auto i : of(instruction)) {
            const auto& e = m_block.events[i];
            if (e.is_delegated_op || e.framework || !timed(e))
                continue;
            if (e.name == "OPERATOR_CALL" || e.name == "DELEGATE_CALL") {
                best = i;
                break;
            }
            if (!best || e.perf->p50 > m_block.events[*best].perf->p50)
                best = i;
        }
        cached->second = best;
        return best;
    }

    struct Delegate {
        // Views into the block's event names, which outlive the index.
        std::unordered_map<std::string_view, std::size_t> timed;          // the delegate's timed events
        std::unordered_map<std::string_view, std::size_t> cycles_by_node; // QNN's op events, by node
        double total_cycles = 0;                                          // Σ of their medians
    };
    const Delegate& delegate(std::int32_t instruction) {
        auto [it, added] = m_delegates.try_emplace(instruction);
        if (!added)
            return it->second;
        for (const auto i : of(instruction)) {
            const auto& e = m_block.events[i];
            if (!e.is_delegated_op || !timed(e))
                continue;
            it->second.timed.emplace(e.name, i);
            const auto op = delegateOpEvent(e.name);
            if (!op || !op->own_clock)
                continue;
            it->second.cycles_by_node.emplace(op->node, i);
            it->second.total_cycles += e.perf->p50;
        }
        return it->second;
    }

private:
    const ProfiledBlock& m_block;
    std::unordered_map<std::int32_t, std::vector<std::size_t>> m_byInstruction;
    std::unordered_map<std::int32_t, Delegate> m_delegates;
    std::unordered_map<std::int32_t, std::optional<std::size_t>> m_outer;
};

const InspectorEvent* runtimeEventOf(const ComparisonRow& row) {
    const auto* pair = row.id().pair;
    return pair && pair->runtime ? pair->runtime->event : nullptr;
}

// The row's time is one event's: its median, named and placed.
RowLatency eventLatency(const ProfiledBlock& block, std::size_t event, LatencySource source,
                        std::int32_t instruction) {
    RowLatency r;
    r.source = source;
    r.events = {event};
    r.instructions = {instruction};
    r.event = block.events[event].name;
    r.p50 = block.events[event].perf->p50;
    return r;
}

RowLatency delegatedRowLatency(BlockIndex& index, const InspectorEvent& event) {
    RowLatency r;
    const ProfiledBlock& block = index.block();
    const std::string node = nodeOfDelegateTensor(event.name);
    const auto& calls = index.delegate(event.instruction_id);
    // The delegate's own event of the same name, in time units.
    if (const auto same = calls.timed.find(event.name); same != calls.timed.end())
        return eventLatency(block, same->second, LatencySource::DelegateOp, event.instruction_id);
    const auto call = index.outer(event.instruction_id);
    const auto op = calls.cycles_by_node.find(node);
    if (op == calls.cycles_by_node.end() || !call || calls.total_cycles <= 0) {
        r.reason =
            calls.cycles_by_node.empty()
                ? "logged inside a delegate call that has no per-op times (QNN: lower with profile_level=2)"
                : "the delegate's profile has no event for node '" + node + "'";
        return r;
    }
    r = eventLatency(block, op->second, LatencySource::DelegateCycles, event.instruction_id);
    r.cycles = r.p50;
    r.call_cycles = calls.total_cycles;
    r.p50 = block.events[*call].perf->p50 * (*r.cycles / *r.call_cycles);
    return r;
}

// Which instructions carry which debug handles (their intermediate outputs'),
// indexed by handle: an op lowered to several kernels (hardswish: add, clamp,
// div, mul) is every instruction whose handles lie within the row's.
struct InstructionIndex {
    std::map<std::int32_t, std::vector<std::int64_t>> handles;
    std::map<std::int64_t, std::vector<std::int32_t>> by_handle;
};

InstructionIndex indexInstructions(const std::vector<InspectorEvent>& events) {
    InstructionIndex index;
    for (const auto& e : events) {
        if (e.delegated || e.instruction_id < 0 || e.resolved.handles.empty())
            continue;
        auto& hs = index.handles[e.instruction_id];
        for (const auto h : e.resolved.handles)
            if (std::find(hs.begin(), hs.end(), h) == hs.end()) {
                hs.push_back(h);
                index.by_handle[h].push_back(e.instruction_id);
            }
    }
    return index;
}

std::vector<std::int32_t> instructionsOfRow(const InstructionIndex& index, const ComparisonRow& row,
                                            const InspectorEvent& event) {
    const auto& tuple = row.id().runtimeDebugHandle();
    std::vector<std::int32_t> out{event.instruction_id};
    for (const auto h : tuple) {
        const auto candidates = index.by_handle.find(h);
        if (candidates == index.by_handle.end())
            continue;
        for (const auto i : candidates->second) {
            if (std::find(out.begin(), out.end(), i) != out.end())
                continue;
            const auto& hs = index.handles.at(i);
            if (std::all_of(hs.begin(), hs.end(), [&](std::int64_t x) {
                    return std::find(tuple.begin(), tuple.end(), x) != tuple.end();
                }))
                out.push_back(i);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The instructions' outermost events, summed run by run, and the median of the sums.
RowLatency instructionsLatency(BlockIndex& index, const std::vector<std::int32_t>& instructions) {
    const ProfiledBlock& block = index.block();
    RowLatency r;
    std::vector<double> sums;
    for (const auto i : instructions) {
        const auto e = index.outer(i);
        if (!e)
            continue;
        const auto& ev = block.events[*e];
        if (sums.empty()) {
            sums.assign(ev.raw.size(), 0.0);
            r.event = ev.name;
            r.source = ev.name == "DELEGATE_CALL" ? LatencySource::DelegateCall : LatencySource::OperatorCall;
        }
        for (std::size_t k = 0; k < sums.size() && k < ev.raw.size(); ++k)
            sums[k] += ev.raw[k];
        r.events.push_back(*e);
        r.instructions.push_back(i);
    }
    if (!sums.empty())
        r.p50 = perfStats(sums).p50;
    if (r.events.size() > 1)
        r.event += " ×" + std::to_string(r.events.size());
    return r;
}

// " (native_call_quantize_per_tensor.out)": the kernel an instruction ran, when it logged one.
std::string kernelOf(const BlockIndex& index, std::int32_t instruction) {
    for (const auto i : index.of(instruction))
        if (const auto& e = index.block().events[i]; kernelEvent(e))
            return " (" + e.name + ")";
    return {};
}

} // namespace

const char* latencySourceName(LatencySource source) {
    switch (source) {
    case LatencySource::OperatorCall: return "operator_call";
    case LatencySource::DelegateCall: return "delegate_call";
    case LatencySource::DelegateOp: return "delegate_op";
    case LatencySource::DelegateCycles: return "delegate_cycles";
    case LatencySource::None: break;
    }
    return "none";
}

std::size_t ComparisonLatency::rowsWithoutTime() const {
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const RowLatency& r) { return !r.p50 && !r.tap; }));
}

std::optional<ComparisonLatency> comparisonLatency(const ProfileTable& table, const Comparison& comparison) {
    const auto holds = [&](const ProfiledBlock& b) {
        return std::find(b.runs.begin(), b.runs.end(), comparison.run) != b.runs.end();
    };
    const auto block = std::find_if(table.blocks.begin(), table.blocks.end(), holds);
    if (block == table.blocks.end())
        return std::nullopt;
    ComparisonLatency out;
    out.scale = table.target;
    out.block = static_cast<std::size_t>(block - table.blocks.begin());
    out.runs = block->runs.size();
    for (const auto& e : block->events)
        if (e.framework && e.name == "Method::execute" && timed(e))
            out.execute_p50 = e.perf->p50;

    const InstructionIndex index = indexInstructions(comparison.events());
    BlockIndex blockIndex(*block);
    std::vector<std::size_t> readers(block->events.size(), 0);
    bool impossibleNoted = false;
    out.rows.reserve(comparison.rows.size());
    for (const auto& row : comparison.rows) {
        RowLatency r;
        const InspectorEvent* event = runtimeEventOf(row);
        if (row.tap) {
            r.tap = true;
            r.reason = row.inside ? "a tap: its op runs inside row " + std::to_string(*row.inside) +
                                        "'s instruction, whose time covers it"
                                  : "a tap: its op's time is its instruction's";
        } else if (!event) {
            r.reason = "no runtime event: the row is the reference's alone";
        } else if (event->delegated) {
            r = delegatedRowLatency(blockIndex, *event);
            if (r.cycles) // back to QNN's own cycles: the table scaled them as ticks
                for (auto* c : {&*r.cycles, &*r.call_cycles})
                    *c *= timeScaleFactor(table.source, table.target);
        } else {
            r = instructionsLatency(blockIndex, instructionsOfRow(index, row, *event));
            if (r.source == LatencySource::None)
                r.reason = "instruction " + std::to_string(event->instruction_id) + " logged no timed event";
        }
        if (r.p50 && out.execute_p50 && *out.execute_p50 > 0)
            r.share = *r.p50 / *out.execute_p50;
        // An event that ends before it starts, read as a 32-bit wrap as the
        // Inspector reads it, and then longer than the whole run: the timestamps
        // are wrong, not the op slow (issue 55, class 4: "4.02e+06% of the run").
        // Its time stays the Inspector's; no share of the run is claimed.
        const bool backwards = std::any_of(r.events.begin(), r.events.end(), [&](std::size_t e) {
            return e < block->events.size() && block->events[e].ends_before_start;
        });
        if (backwards && r.share && *r.share > 1) {
            r.share.reset();
            r.reason = "an event of this row ends before it starts; read as a 32-bit counter wrap, as "
                       "ExecuTorch's Inspector reads it, it lasts longer than the whole run, so its "
                       "timestamps are not to be trusted and no share of the run is given";
            if (!impossibleNoted) {
                out.notes.push_back("a row's event ends before it starts and, read as a 32-bit wrap, lasts "
                                    "longer than the run: its time is shown as the Inspector computes it, "
                                    "without a share of the run");
                impossibleNoted = true;
            }
        }
        for (const auto e : r.events)
            ++readers[e];
        out.rows.push_back(std::move(r));
    }
    for (auto& r : out.rows)
        if (!r.events.empty())
            r.shared_by = readers[r.events.front()];

    // The reverse: timed events no row reads. A kernel's native_call nests in its
    // OPERATOR_CALL, and a delegate's totals in its call: neither is an op of its own.
    for (std::size_t i = 0; i < block->events.size(); ++i) {
        const auto& e = block->events[i];
        if (!timed(e) || e.framework || readers[i] > 0 || kernelEvent(e))
            continue;
        UntimedEvent u{e.name, e.instruction_id, e.perf->p50, {}};
        if (!e.is_delegated_op)
            u.reason =
                "no compared row is this instruction's output" + kernelOf(blockIndex, e.instruction_id);
        else if (const auto op = delegateOpEvent(e.name))
            u.reason = op->own_clock ? "no compared row is node '" + std::string(op->node) + "'"
                                     : "a delegate op's event in " + std::string(op->unit);
        else
            u.reason = "the delegate's own event, named by the backend (" + e.delegate_backend_name +
                       "): not tied to a graph node";
        out.timed_without_numerics.push_back(std::move(u));
    }
    if (!out.execute_p50)
        out.notes.push_back("the run logged no Method::execute time: shares of the run's time are not known");
    return out;
}

} // namespace gapscope
