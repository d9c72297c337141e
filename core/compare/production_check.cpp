#include "core/compare/production_check.h"

#include "core/align/inspector_events.h"
#include "core/compare/element_plan.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

namespace gapscope {

namespace {

bool isQuantize(const std::string& target) {
    return target.find("quantize_per_") != std::string::npos &&
           target.find("dequantize") == std::string::npos;
}

bool isQuantOrTap(const GraphNode& node) {
    const auto& t = node.target;
    return t.find("quantize_per_") != std::string::npos || t.find("choose_qparams") != std::string::npos ||
           t.find("tap.Tensor") != std::string::npos || t.find("getitem") != std::string::npos ||
           node.name.rfind("executorch_devtools_tap", 0) == 0;
}

// Where each op of a build runs, by node name.
struct Build {
    std::map<std::string, OpPlacement> ops;
    std::size_t delegates = 0;
};

Build placeOps(const EtRecord& record, const std::string& method) {
    Build out;
    const auto* graph = record.edgeProgram(method);
    const auto* maps = record.maps(method);
    if (!graph || !maps)
        return out;
    // Delegates numbered in instruction order, as they run.
    std::map<std::int64_t, std::size_t> ordinal;
    for (const auto& [instruction, mapping] : maps->delegate_map)
        ordinal.emplace(instruction, ordinal.size() + 1);
    out.delegates = ordinal.size();
    std::unordered_map<std::int64_t, std::int64_t> instructionOf; // handle → the first instruction holding it
    for (const auto& [instruction, handles] : maps->debug_handle_map)
        for (const auto h : handles.handles)
            instructionOf.emplace(h, instruction);
    std::unordered_map<std::string, bool> feedsQuantize; // tensor → consumed by a quantize node
    for (const auto& node : graph->nodes)
        if (isQuantize(node.target))
            for (const auto& input : node.input_tensors)
                feedsQuantize[input] = true;
    for (const auto& node : graph->nodes) {
        if (isQuantOrTap(node) || node.name.empty())
            continue;
        OpPlacement place;
        place.where = "not run";
        for (const auto h : node.debug_handles) {
            const auto it = instructionOf.find(h);
            if (it == instructionOf.end())
                continue;
            const auto d = ordinal.find(it->second);
            place.where = d == ordinal.end() ? "CPU"
                                             : "delegate " + std::to_string(d->second) + " of " +
                                                   std::to_string(ordinal.size()) + " (" +
                                                   maps->delegate_map.at(it->second).backend + ")";
            break;
        }
        place.requantized = std::any_of(node.output_tensors.begin(), node.output_tensors.end(),
                                        [&](const std::string& t) { return feedsQuantize.count(t) > 0; });
        out.ops.emplace(node.name, std::move(place));
    }
    return out;
}

std::optional<Operand> operandOf(const EtDump& dump, const RuntimeValue& value, std::string& why) {
    if (value.kind != RuntimeValue::Kind::Tensor) {
        if (value.kind == RuntimeValue::Kind::Int || value.kind == RuntimeValue::Kind::Bool ||
            value.kind == RuntimeValue::Kind::Double)
            return Operand::number(value.number);
        why = "not a tensor or a number";
        return std::nullopt;
    }
    const Tensor& t = *value.tensor;
    if (t.data != TensorData::Present || !t.numel) {
        why = t.data == TensorData::None ? "no debug buffer was given: the output has no data"
                                         : "its data is missing or unusable" +
                                               (t.problem.empty() ? std::string() : ": " + t.problem);
        return std::nullopt;
    }
    return Operand::tensorOver(static_cast<ScalarType>(t.scalar_type), t.sizes, dump.tensorBytes(t),
                               *t.numel);
}

OutputAgreement agree(const EtDump& prodDump, const RuntimeValue& prod, const EtDump& tapDump,
                      const RuntimeValue& tapped) {
    OutputAgreement out;
    std::string why;
    const auto a = operandOf(prodDump, prod, why);
    const auto b = a ? operandOf(tapDump, tapped, why) : std::nullopt;
    if (!a || !b) {
        out.reason = (a ? "the tapped run's output: " : "the production run's output: ") + why;
        return out;
    }
    // Byte for byte the same: no measure needed (numbers have no bytes and are measured).
    if (a->bytes.size != 0 && a->type == b->type && a->shape() == b->shape() &&
        a->bytes.size == b->bytes.size && std::memcmp(a->bytes.data, b->bytes.data, a->bytes.size) == 0) {
        out.verdict = OutputAgreement::Verdict::Identical;
        return out;
    }
    ElementPlan plan;
    plan.reference = *a;
    plan.runtime = *b;
    plan.executorch_numbers = false;
    const auto measured = measureElement(plan);
    if (measured.status != RowStatus::Ok || !measured.metrics) {
        out.reason = measured.reason.empty() ? "the two outputs cannot be compared" : measured.reason;
        return out;
    }
    out.metrics = measured.metrics;
    out.verdict = measured.metrics->max_abs == 0               ? OutputAgreement::Verdict::Identical
                  : measured.metrics->rel_l2 <= kRoundingRelL2 ? OutputAgreement::Verdict::WithinRounding
                                                               : OutputAgreement::Verdict::Differs;
    return out;
}

std::string describe(const OpPlacement& p) {
    return p.where + (p.requantized ? ", its output requantised" : "");
}

} // namespace

const char* verdictName(OutputAgreement::Verdict verdict) {
    switch (verdict) {
    case OutputAgreement::Verdict::Identical: return "identical";
    case OutputAgreement::Verdict::WithinRounding: return "within rounding";
    case OutputAgreement::Verdict::Differs: return "differs";
    case OutputAgreement::Verdict::Invalid: return "invalid";
    }
    return "invalid";
}

bool ProductionCheck::outputsAgree() const {
    return std::none_of(outputs.begin(), outputs.end(), [](const OutputAgreement& o) {
        return o.verdict == OutputAgreement::Verdict::Differs;
    });
}

ProductionCheck checkProduction(const EtRecord& tapped, const EtRecord& production, const std::string& method,
                                const EtDump* tappedDump, std::size_t tappedRun, const EtDump* productionDump,
                                std::size_t productionRun, const std::set<std::size_t>& tapOutputs) {
    ProductionCheck check;
    check.method = method;
    const Build t = placeOps(tapped, method), p = placeOps(production, method);
    check.tapped_delegates = t.delegates;
    check.production_delegates = p.delegates;
    std::map<std::string, std::vector<std::string>> byDelegate; // a delegate → its ops' differences
    const auto note = [&](const std::string& where, const std::string& what) {
        if (where.rfind("delegate", 0) == 0)
            byDelegate[where].push_back(what);
    };
    for (const auto& [name, place] : p.ops) {
        const auto it = t.ops.find(name);
        if (it == t.ops.end()) {
            check.differences.push_back({name, {}, place, false, true});
            note(place.where, name + " is not in the tapped build");
            continue;
        }
        ++check.ops_compared;
        if (it->second.where == place.where && it->second.requantized == place.requantized)
            continue;
        check.differences.push_back({name, it->second, place, true, true});
        const std::string what =
            it->second.where == place.where
                ? name + ": its output is requantised in the " +
                      (it->second.requantized ? "tapped build only (the tap broke a fusion)"
                                              : "production build only")
                : name + ": " + describe(it->second) + " in the tapped build, " + describe(place) +
                      " in production";
        note(place.where, what);
        if (it->second.where != place.where)
            note(it->second.where, what);
    }
    for (const auto& [name, place] : t.ops)
        if (!p.ops.count(name)) {
            check.differences.push_back({name, place, {}, true, false});
            note(place.where, name + " is not in the production build");
        }
    for (const auto& [where, whats] : byDelegate) {
        std::string line = where + ": ";
        for (std::size_t i = 0; i < whats.size(); ++i)
            line += (i ? "; " : "") + whats[i];
        check.delegate_notes.push_back(std::move(line));
    }
    if (t.ops.empty() || p.ops.empty())
        check.findings.push_back("an ETRecord has no edge program or maps for method '" + method +
                                 "': the partitions cannot be compared");
    else if (check.ops_compared == 0)
        check.findings.push_back("the two builds share no op name: they are not builds of one model");
    else if (check.samePartitions())
        check.findings.push_back("same partitions: " + std::to_string(t.delegates) + " delegate(s), " +
                                 std::to_string(check.ops_compared) +
                                 " ops placed and quantised alike in both builds");
    else
        check.findings.push_back(
            "the tapped build is partitioned or quantised otherwise than production (" +
            std::to_string(t.delegates) + " delegate(s) against " + std::to_string(p.delegates) + ", " +
            std::to_string(check.differences.size()) + " op(s) placed or quantised otherwise)");

    if (tappedDump && productionDump && tappedRun < tappedDump->runs.size() &&
        productionRun < productionDump->runs.size()) {
        check.runs_compared = true;
        const auto a = flatProgramOutputs(productionDump->runs[productionRun]);
        const auto all = flatProgramOutputs(tappedDump->runs[tappedRun]);
        std::vector<std::size_t> kept; // the tapped run's outputs that are the program's own
        for (std::size_t i = 0; i < all.size(); ++i)
            if (!tapOutputs.count(i))
                kept.push_back(i);
        for (std::size_t i = 0; i < std::max(a.size(), kept.size()); ++i) {
            OutputAgreement agreement;
            if (i < a.size() && i < kept.size())
                agreement = agree(*productionDump, a[i], *tappedDump, all[kept[i]]);
            else
                agreement.reason = "the production run logged " + std::to_string(a.size()) +
                                   " program outputs, the tapped run " + std::to_string(kept.size()) +
                                   " besides its taps";
            agreement.index = i;
            agreement.tapped_index = i < kept.size() ? kept[i] : i;
            check.outputs.push_back(std::move(agreement));
        }
        std::size_t differs = 0;
        for (const auto& o : check.outputs)
            differs += o.verdict == OutputAgreement::Verdict::Differs;
        if (differs)
            check.findings.push_back(
                std::to_string(differs) + " of " + std::to_string(check.outputs.size()) +
                " program output(s) differ beyond rounding between the two runs: the tapped numbers "
                "describe another program than the one shipped; a tap that breaks a fusion (a conv "
                "tapped before its ReLU) changes what is quantised");
        else if (!check.outputs.empty())
            check.findings.push_back("the program outputs of the two runs agree (" +
                                     std::to_string(check.outputs.size()) +
                                     " output(s), identical or within rounding): the tap rows describe the "
                                     "program shipped");
    }
    return check;
}

} // namespace gapscope
