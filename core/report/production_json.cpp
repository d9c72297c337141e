#include "core/report/production_json.h"

#include "core/report/etdump_json.h"
#include "core/report/text_format.h"

namespace gapscope {

using json = nlohmann::ordered_json;

namespace {

json placementJson(const OpPlacement& p, bool present) {
    if (!present)
        return nullptr;
    return {{"where", p.where}, {"requantized", p.requantized}};
}

} // namespace

json productionCheckToJson(const ProductionCheck& check) {
    json differences = json::array();
    for (const auto& d : check.differences)
        differences.push_back({{"op", d.op},
                               {"tapped", placementJson(d.tapped, d.present_in_tapped)},
                               {"production", placementJson(d.production, d.present_in_production)}});
    json outputs = json::array();
    for (const auto& o : check.outputs)
        outputs.push_back({{"index", o.index},
                           {"tapped_index", o.tapped_index},
                           {"verdict", verdictName(o.verdict)},
                           {"reason", o.reason.empty() ? json(nullptr) : json(o.reason)},
                           {"sqnr_db", o.metrics ? jsonNumber(o.metrics->sqnr) : json(nullptr)},
                           {"max_abs", o.metrics ? jsonNumber(o.metrics->max_abs) : json(nullptr)},
                           {"rel_l2", o.metrics ? jsonNumber(o.metrics->rel_l2) : json(nullptr)}});
    return {{"method", check.method},
            {"tapped_delegates", check.tapped_delegates},
            {"production_delegates", check.production_delegates},
            {"ops_compared", check.ops_compared},
            {"same_partitions", check.samePartitions()},
            {"differences", differences},
            {"delegates", check.delegate_notes},
            {"runs_compared", check.runs_compared},
            {"outputs_agree", check.runs_compared ? json(check.outputsAgree()) : json(nullptr)},
            {"outputs", outputs},
            {"findings", check.findings}};
}

void writeProductionCheck(std::ostream& out, const ProductionCheck& check) {
    for (const auto& f : check.findings)
        out << "production: " << f << '\n';
    for (const auto& d : check.delegate_notes)
        out << "production:   " << d << '\n';
    for (const auto& o : check.outputs)
        out << "production:   output " << o.index << ": " << verdictName(o.verdict)
            << (o.metrics ? " (SQNR " + shortNumber(o.metrics->sqnr) + " dB, max |d| " +
                                shortNumber(o.metrics->max_abs) + ")"
                          : std::string())
            << (o.reason.empty() ? std::string() : ": " + o.reason) << '\n';
}

} // namespace gapscope
