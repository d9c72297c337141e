#include "core/compare/stage_ladder.h"

#include "core/capture/reference_kind.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/row_name.h"
#include "core/metrics/gap_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace gapscope {

namespace {

// torchao's quantize_ (8da4w, ExecuTorch's LLM recipes) leaves its own ops in the
// graph, not PT2E's quantize_per_*: the graph simulates the quantisation all the same.
bool holdsTorchaoQuantization(const AotCapture& capture) {
    for (const auto& record : capture.records)
        for (const auto& op : record.ops)
            if (op.rfind("dequantize_affine", 0) == 0 || op.rfind("quantize_affine", 0) == 0)
                return true;
    return false;
}

} // namespace

std::optional<LadderStage> ladderStageOf(const AotCapture& capture) {
    const std::string graph = keyingGraph(capture);
    const bool edge = graph.rfind("edge", 0) == 0;
    switch (referenceKind(capture)) {
    case ReferenceKind::FloatModel: return LadderStage::FloatModel;
    case ReferenceKind::ExportedGraph:
        if (holdsTorchaoQuantization(capture))
            return edge ? LadderStage::QuantEdge : LadderStage::QuantAten;
        return edge ? LadderStage::EdgeGraph : LadderStage::AtenGraph;
    case ReferenceKind::QnnGraph: return LadderStage::BackendGraph;
    case ReferenceKind::QuantSimulation: return edge ? LadderStage::QuantEdge : LadderStage::QuantAten;
    case ReferenceKind::HostTwin: return LadderStage::HostKernels;
    case ReferenceKind::ModelRun: return std::nullopt;
    }
    return std::nullopt;
}

std::string ladderStageLabel(LadderStage stage) {
    switch (stage) {
    case LadderStage::FloatModel: return "float model";
    case LadderStage::AtenGraph: return "ATen graph";
    case LadderStage::EdgeGraph: return "edge graph";
    case LadderStage::BackendGraph: return "backend graph (weights quantised)";
    case LadderStage::QuantAten: return "quantised simulation (ATen)";
    case LadderStage::QuantEdge: return "quantised simulation (edge)";
    case LadderStage::HostKernels: return "host kernels (no delegates)";
    case LadderStage::Device: return "device";
    }
    return {};
}

std::string ladderStepLabel(LadderStage stage) {
    switch (stage) {
    case LadderStage::FloatModel: return "float model";
    case LadderStage::AtenGraph: return "export";
    case LadderStage::EdgeGraph: return "to edge";
    case LadderStage::BackendGraph: return "weights, passes";
    case LadderStage::QuantAten: return "quantisation";
    case LadderStage::QuantEdge: return "to edge (quantised)";
    case LadderStage::HostKernels: return "host kernels";
    case LadderStage::Device: return "device kernels";
    }
    return {};
}

bool quantizesActivations(LadderStage stage) {
    return stage == LadderStage::QuantAten || stage == LadderStage::QuantEdge ||
           stage == LadderStage::HostKernels;
}

std::string ladderStageKey(LadderStage stage) {
    switch (stage) {
    case LadderStage::FloatModel: return "float";
    case LadderStage::AtenGraph: return "aten";
    case LadderStage::EdgeGraph: return "edge";
    case LadderStage::BackendGraph: return "backend";
    case LadderStage::QuantAten: return "quant_aten";
    case LadderStage::QuantEdge: return "quant_edge";
    case LadderStage::HostKernels: return "host";
    case LadderStage::Device: return "device";
    }
    return {};
}

namespace {

// A row of any comparison of the run, found by what the runtime logged: its
// handles, which output of them, and which tap.
using RowKey = std::tuple<HandleTuple, int, long long>;

RowKey keyOf(const ComparisonRow& row) {
    return {row.id().runtimeDebugHandle(), row.output_index,
            row.tap ? static_cast<long long>(row.tap->index) : -1LL};
}

std::map<RowKey, std::size_t> rowIndex(const Comparison& c) {
    std::map<RowKey, std::size_t> index;
    for (std::size_t i = 0; i < c.rows.size(); ++i)
        index.emplace(keyOf(c.rows[i]), i); // the first of equal keys, as row order lists them
    return index;
}

bool holdsValue(const Operand& o) {
    return o.is_scalar || !o.bytes.empty();
}

LadderCell noNumber(std::string why) {
    return {std::nullopt, std::move(why)};
}

// The worst SNR over elements of `later` against `earlier` (both references).
LadderCell compareOperands(const std::vector<const Operand*>& earlier,
                           const std::vector<const Operand*>& later) {
    if (earlier.empty() || earlier.size() != later.size())
        return noNumber("the two references hold different numbers of values");
    std::optional<double> worst;
    for (std::size_t e = 0; e < earlier.size(); ++e) {
        if (!earlier[e] || !later[e] || !holdsValue(*earlier[e]) || !holdsValue(*later[e]))
            return noNumber("a reference has no value for this op");
        if (earlier[e]->numel != later[e]->numel)
            return noNumber("the references' shapes differ (" + shapeText(earlier[e]->shape()) + " and " +
                            shapeText(later[e]->shape()) + ")");
        GapOptions options;
        options.threads = 1; // rows in parallel would serve better than elements; tiny tensors mostly
        auto gap = computeGap(*earlier[e], *later[e], options);
        if (!gap.metrics)
            return noNumber(gap.problem);
        if (std::isnan(gap.metrics->snr))
            return noNumber("no SNR: both values are zero");
        if (!worst || gap.metrics->snr < *worst)
            worst = gap.metrics->snr;
    }
    return {worst, {}};
}

std::vector<const Operand*> referenceOperands(const ComparisonRow& row) {
    std::vector<const Operand*> out;
    for (const auto& plan : row.elementPlans())
        out.push_back(&plan.reference);
    return out;
}

LadderCell deviceCell(const ComparisonRow* row) {
    if (!row)
        return noNumber("not a row of this reference's comparison");
    if (!row->measured)
        return noNumber("not measured");
    if (row->bounds)
        return noNumber("a statistics tap: bounds, not a measurement");
    if (row->status != RowStatus::Ok)
        return noNumber(row->reason.empty() ? rowStatusName(row->status) : row->reason);
    const auto snr = rowMetric(*row, Metric::Snr);
    return snr ? LadderCell{snr, {}} : noNumber("no SNR");
}

Operand outputOperand(const AotCapture& capture, std::size_t index) {
    if (!capture.reference_outputs || index >= capture.reference_outputs->size() || !capture.file)
        return {};
    const auto& value = (*capture.reference_outputs)[index];
    if (value.kind == CaptureValue::Kind::Float)
        return Operand::number(value.float_value);
    if (value.kind == CaptureValue::Kind::Int)
        return Operand::number(static_cast<double>(value.int_value));
    if (value.kind != CaptureValue::Kind::Tensor)
        return {};
    const auto* t = capture.tensor(value);
    if (!t)
        return {};
    return Operand::tensorOver(t->scalar_type, t->shape, capture.file->bytes(*t), t->numel);
}

void rankSteps(LadderRow& row) {
    double noise = 0;
    std::vector<std::optional<double>> powers;
    for (std::size_t s = 0; s < row.steps.size(); ++s) {
        const auto& snr = row.steps[s].snr;
        if (!snr) {
            powers.emplace_back();
            continue;
        }
        // A step that changes nothing, or no more than float rounding, loses
        // nothing: never "the most".
        if (*snr < kLadderLosslessDb && (!row.worst_step || *snr < *row.steps[*row.worst_step].snr))
            row.worst_step = s;
        const double p = std::isinf(*snr) ? (*snr > 0 ? 0.0 : 1.0) : std::pow(10.0, -*snr / 10.0);
        powers.emplace_back(p);
        noise += p;
    }
    for (const auto& p : powers)
        row.share.push_back(p ? std::optional<double>(noise > 0 ? *p / noise : 0.0) : std::nullopt);
}

// Each step into a stage that holds a value for the row, from the last stage
// before it that holds one (a float reference has no value for a quantised
// graph's dequantize, a host run no program output): a stage without one is
// skipped, never a step of nothing. The device's step is from the last stage
// holding a value: its single-reference comparison.
template <typename Holds, typename Between>
void fillSteps(LadderRow& row, std::size_t refs, const Holds& holds, const Between& between) {
    std::optional<std::size_t> last;
    for (std::size_t s = 0; s < refs; ++s) {
        const bool has = holds(s);
        if (s > 0)
            row.steps.push_back(!has    ? noNumber("this stage has no value for it")
                                : !last ? noNumber("no stage before this one has a value for it")
                                        : between(*last, s));
        if (has)
            last = s;
    }
    if (refs)
        row.steps.push_back(last ? row.device[*last] : noNumber("no reference has a value for it"));
    rankSteps(row);
}

} // namespace

StageLadder buildStageLadder(const Comparison& base, std::vector<LadderReference> references,
                             bool quantized) {
    StageLadder ladder;
    ladder.method = base.method;
    ladder.run = base.run;
    std::stable_sort(references.begin(), references.end(),
                     [](const LadderReference& a, const LadderReference& b) { return a.stage < b.stage; });
    std::vector<LadderReference> kept;
    for (auto& r : references) {
        if (!r.comparison || !r.capture)
            continue;
        if (!kept.empty() && kept.back().stage == r.stage) {
            ladder.notes.push_back(r.capture_path + ": a second " + ladderStageLabel(r.stage) + " (" +
                                   kept.back().capture_path + " serves)");
            continue;
        }
        kept.push_back(r);
    }
    for (const auto& r : kept) {
        ladder.stages.push_back(r.stage);
        ladder.capture_paths.push_back(r.capture_path);
        ladder.graphs.push_back(r.graph);
    }
    ladder.stages.push_back(LadderStage::Device);
    for (std::size_t s = 1; s < ladder.stages.size(); ++s)
        ladder.step_labels.push_back(ladderStepLabel(ladder.stages[s]));
    const bool simulated = std::any_of(
        kept.begin(), kept.end(), [](const LadderReference& r) { return quantizesActivations(r.stage); });
    if (quantized && !simulated)
        ladder.step_labels.back() = "quantisation, kernels";
    const std::size_t refs = kept.size();
    const std::size_t steps = refs; // between references, then the last reference → device
    ladder.worst_counts.assign(steps, 0);

    std::vector<std::map<RowKey, std::size_t>> indices;
    for (const auto& r : kept)
        indices.push_back(rowIndex(*r.comparison));

    for (std::size_t i = 0; i < base.rows.size(); ++i) {
        const ComparisonRow& b = base.rows[i];
        LadderRow row;
        row.row = i;
        row.name = displayOpName(b);
        const auto key = keyOf(b);
        std::vector<const ComparisonRow*> at(refs, nullptr);
        for (std::size_t s = 0; s < refs; ++s) {
            const auto found = indices[s].find(key);
            if (found != indices[s].end())
                at[s] = &kept[s].comparison->rows[found->second];
        }
        const auto between = [&](std::size_t from, std::size_t to) {
            if (!at[from] || !at[to])
                return noNumber("not a row of both references' comparisons");
            if (b.bounds)
                return noNumber("a statistics tap: bounds, not a measurement");
            return compareOperands(referenceOperands(*at[from]), referenceOperands(*at[to]));
        };
        for (std::size_t s = 0; s < refs; ++s)
            row.device.push_back(deviceCell(at[s]));
        for (std::size_t s = 0; s < refs; ++s)
            row.against_first.push_back(s == 0 ? noNumber("the first stage") : between(0, s));
        if (refs)
            row.against_first.push_back(row.device.front());
        fillSteps(
            row, refs,
            [&](std::size_t s) {
                if (!at[s] || at[s]->elementPlans().empty())
                    return false;
                const auto& plans = at[s]->elementPlans();
                return std::all_of(plans.begin(), plans.end(),
                                   [](const auto& p) { return holdsValue(p.reference); });
            },
            between);
        if (row.worst_step)
            ++ladder.worst_counts[*row.worst_step];
        ladder.rows.push_back(std::move(row));
    }

    // The program outputs, from the captures' reference outputs and each
    // comparison's own output numbers.
    std::size_t outputs = 0;
    for (const auto& r : kept)
        outputs = std::max(outputs, r.comparison->outputs.size());
    for (std::size_t o = 0; o < outputs; ++o) {
        LadderRow row;
        row.row = o;
        row.output = true;
        row.name = "output " + std::to_string(o);
        std::vector<Operand> values;
        for (const auto& r : kept)
            values.push_back(outputOperand(*r.capture, o));
        for (const auto& r : kept) {
            const OutputComparison* oc =
                o < r.comparison->outputs.size() ? &r.comparison->outputs[o] : nullptr;
            if (!oc)
                row.device.push_back(noNumber("no such output in this comparison"));
            else if (oc->metrics)
                row.device.push_back({oc->metrics->snr, {}});
            else
                row.device.push_back(noNumber(oc->reason.empty() ? rowStatusName(oc->status) : oc->reason));
        }
        const auto between = [&](std::size_t from, std::size_t to) {
            return compareOperands({&values[from]}, {&values[to]});
        };
        for (std::size_t s = 0; s < refs; ++s)
            row.against_first.push_back(s == 0 ? noNumber("the first stage") : between(0, s));
        if (refs)
            row.against_first.push_back(row.device.front());
        fillSteps(
            row, refs, [&](std::size_t s) { return holdsValue(values[s]); }, between);
        ladder.rows.push_back(std::move(row));
    }
    return ladder;
}

} // namespace gapscope
