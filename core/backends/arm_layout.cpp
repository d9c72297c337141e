#include "core/backends/arm_layout.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <unordered_map>

namespace gapscope {

namespace {

std::vector<std::int64_t> identity(std::size_t rank) {
    std::vector<std::int64_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    return order;
}

// TOSA ops whose tensors are channels-last by definition, and that rank.
std::size_t channelsLastRank(const std::string& op) {
    static const std::set<std::string> k4 = {"CONV2D",     "DEPTHWISE_CONV2D", "TRANSPOSE_CONV2D",
                                             "AVG_POOL2D", "MAX_POOL2D",       "RESIZE"};
    if (k4.count(op))
        return 4;
    return op == "CONV3D" ? 5 : 0;
}

constexpr std::size_t kMaxPasses = 16;

bool keepsInputOrder(const std::string& op);

// Elementwise ops: each output element from the same element of each input.
bool isPointwise(const std::string& op) {
    static const std::set<std::string> kAxisWise = {
        "CONCAT",         "PAD",        "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN",
        "REDUCE_PRODUCT", "REDUCE_SUM", "REVERSE",    "SLICE",      "TILE"};
    return keepsInputOrder(op) && !kAxisWise.count(op);
}

// Ops whose output is laid out as their inputs are.
bool keepsInputOrder(const std::string& op) {
    static const std::set<std::string> kOps = {"ABS",
                                               "ADD",
                                               "ARITHMETIC_RIGHT_SHIFT",
                                               "BITWISE_AND",
                                               "BITWISE_NOT",
                                               "BITWISE_OR",
                                               "BITWISE_XOR",
                                               "CAST",
                                               "CEIL",
                                               "CLAMP",
                                               "CLZ",
                                               "CONCAT",
                                               "COS",
                                               "EQUAL",
                                               "ERF",
                                               "EXP",
                                               "FLOOR",
                                               "GREATER",
                                               "GREATER_EQUAL",
                                               "IDENTITY",
                                               "INTDIV",
                                               "LOG",
                                               "LOGICAL_AND",
                                               "LOGICAL_LEFT_SHIFT",
                                               "LOGICAL_NOT",
                                               "LOGICAL_OR",
                                               "LOGICAL_RIGHT_SHIFT",
                                               "LOGICAL_XOR",
                                               "MAXIMUM",
                                               "MINIMUM",
                                               "MUL",
                                               "NEGATE",
                                               "PAD",
                                               "POW",
                                               "RECIPROCAL",
                                               "REDUCE_ALL",
                                               "REDUCE_ANY",
                                               "REDUCE_MAX",
                                               "REDUCE_MIN",
                                               "REDUCE_PRODUCT",
                                               "REDUCE_SUM",
                                               "RESCALE",
                                               "REVERSE",
                                               "RSQRT",
                                               "SELECT",
                                               "SIGMOID",
                                               "SIN",
                                               "SLICE",
                                               "SUB",
                                               "TABLE",
                                               "TANH",
                                               "TILE"};
    return kOps.count(op) > 0;
}

} // namespace

bool keepsElementOrder(const std::vector<std::int64_t>& order, const std::vector<std::int64_t>& shape) {
    std::int64_t last = -1;
    for (std::size_t i = 0; i < order.size() && i < shape.size(); ++i) {
        if (shape[i] == 1)
            continue;
        if (order[i] < last)
            return false;
        last = order[i];
    }
    return true;
}

std::vector<AxisOrder> tosaAxisOrders(const TosaRun& run, const std::vector<TransposeRole>& roles) {
    // Each graph tensor: a graph input (torch's order) or an op's output.
    struct Tensor {
        std::size_t op = 0; // its op's index; ops.size() for a graph input
        const std::vector<std::int64_t>* shape = nullptr;
    };
    const std::size_t n = run.ops.size();
    std::unordered_map<std::string, Tensor> tensors;
    for (const auto& [name, tensor] : run.inputs)
        tensors[name] = {n, &tensor.shape};
    for (std::size_t k = 0; k < n; ++k)
        tensors[run.ops[k].output] = {k, &run.ops[k].shape};
    std::vector<AxisOrder> out(n);
    const auto orderOf = [&](const Tensor& t) -> AxisOrder {
        return t.op == n ? AxisOrder(identity(t.shape->size())) : out[t.op];
    };
    const auto torchOrder = [&](const Tensor& t) {
        const AxisOrder o = orderOf(t);
        return o && keepsElementOrder(*o, *t.shape);
    };
    // The order of op k's output from its inputs' orders, or none yet.
    const auto infer = [&](std::size_t k) -> AxisOrder {
        const TosaRunOp& op = run.ops[k];
        const TransposeRole role = k < roles.size() ? roles[k] : TransposeRole::Layout;
        // Its inputs that are tensors of the graph (constants, shapes and zero
        // points are not, and say nothing of the layout).
        std::vector<Tensor> in;
        for (const auto& name : op.inputs)
            if (const auto it = tensors.find(name); it != tensors.end())
                in.push_back(it->second);
        if (in.empty())
            return std::nullopt;
        const std::size_t rank = op.shape.size();
        const AxisOrder first = orderOf(in.front());
        if (isPointwise(op.op)) {
            // An element of the output is a function of the same element of each
            // input of its rank, so every such input is laid out as the output
            // is: one known input tells (TOSA's graph computes the model).
            // Operands of a lower rank (broadcast) must be in torch's order.
            AxisOrder order;
            for (const auto& t : in) {
                const AxisOrder o = orderOf(t);
                if (t.shape->size() != rank) {
                    if (o && !keepsElementOrder(*o, *t.shape))
                        return std::nullopt;
                    continue;
                }
                if (!o)
                    continue;
                if (order && *order != *o)
                    return std::nullopt; // inputs that disagree: nothing is claimed
                order = o;
            }
            if (!order && std::all_of(in.begin(), in.end(), [&](const Tensor& t) {
                    return t.shape->size() != rank && torchOrder(t);
                }))
                order = identity(rank); // only broadcast operands, in torch's order
            return order;
        }
        if (!first)
            return std::nullopt;
        if (op.op == "TRANSPOSE" && role == TransposeRole::NodesOwn)
            return torchOrder(in.front()) ? AxisOrder(identity(rank)) : std::nullopt;
        if (op.op == "TRANSPOSE") {
            if (first->size() != op.perms.size())
                return std::nullopt;
            std::vector<std::int64_t> composed;
            for (const auto p : op.perms)
                composed.push_back((*first)[static_cast<std::size_t>(p)]);
            if (role == TransposeRole::Layout || keepsElementOrder(composed, op.shape))
                return composed;
            return std::nullopt;
        }
        if (const std::size_t channelsLast = channelsLastRank(op.op); channelsLast > 0) {
            // channels-last in: the backend transposed the input for it.
            std::vector<std::int64_t> expected(channelsLast);
            expected[0] = 0;
            for (std::size_t i = 1; i + 1 < channelsLast; ++i)
                expected[i] = static_cast<std::int64_t>(i + 1);
            expected[channelsLast - 1] = 1;
            // Or an input whose size-1 axes make both orders one (a linear's
            // [N,1,1,C], reshaped for a 1x1 CONV2D).
            if (rank == channelsLast &&
                (*first == expected ||
                 (torchOrder(in.front()) && keepsElementOrder(expected, *in.front().shape))))
                return expected;
            return std::nullopt;
        }
        if (op.op == "RESHAPE" || op.op == "MATMUL" || !keepsInputOrder(op.op))
            // Torch's reshape and matmul, and any other op (GATHER, ARGMAX), of
            // tensors in torch's order.
            return std::all_of(in.begin(), in.end(), [&](const Tensor& t) { return torchOrder(t); })
                       ? AxisOrder(identity(rank))
                       : std::nullopt;
        // Axis-wise ops (reductions that keep their axes, SLICE, PAD, TILE,
        // REVERSE, CONCAT): as their inputs of the output's rank, all alike.
        AxisOrder order;
        for (const auto& t : in) {
            const AxisOrder o = orderOf(t);
            if (!o || (t.shape->size() == rank && order && *order != *o))
                return std::nullopt;
            if (t.shape->size() == rank)
                order = o;
        }
        return order;
    };
    // Forward from the inputs, and back through pointwise ops to an operand
    // whose order is not known yet (the attention's output, added to the
    // residual in torch's order), until nothing changes.
    for (std::size_t pass = 0; pass < kMaxPasses; ++pass) {
        bool changed = false;
        for (std::size_t k = 0; k < n; ++k)
            if (!out[k])
                if (AxisOrder o = infer(k); o && o->size() == run.ops[k].shape.size()) {
                    out[k] = std::move(o);
                    changed = true;
                }
        for (std::size_t k = n; k-- > 0;) {
            const TosaRunOp& op = run.ops[k];
            if (!out[k] || !isPointwise(op.op))
                continue;
            for (const auto& name : op.inputs)
                if (const auto it = tensors.find(name); it != tensors.end() && it->second.op < n &&
                                                        !out[it->second.op] &&
                                                        *it->second.shape == op.shape) {
                    out[it->second.op] = out[k];
                    changed = true;
                }
        }
        if (!changed)
            break;
    }
    return out;
}

} // namespace gapscope
