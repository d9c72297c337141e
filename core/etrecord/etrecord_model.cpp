#include "core/etrecord/etrecord_model.h"

namespace gapscope {

std::int64_t MethodMaps::numOutputs(std::int64_t instruction) const {
    auto it = num_outs.find(instruction);
    return it == num_outs.end() ? 1 : it->second;
}

const ExportGraph* EtRecord::edgeProgram(const std::string& method) const {
    auto it = edge_programs.find(method);
    return it == edge_programs.end() ? nullptr : &it->second;
}

const MethodMaps* EtRecord::maps(const std::string& method) const {
    auto it = methods.find(method);
    return it == methods.end() ? nullptr : &it->second;
}

} // namespace gapscope
