#pragma once

#include "core/align/alignment.h"
#include "core/align/handle_subset_index.h"
#include "core/capture/aot_capture.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// ExecuTorch's find_op_names: the runtime op names (Alignment::runtime_op_names)
// and the capture's op names whose handles lie within a row's handles, in their
// lists' order. Both lists are borrowed: their elements, not the vector holding
// the runtime names, which may be moved meanwhile (its elements stay where they
// are), so the index can be built on another core while the alignment takes
// the names over.
class OpNamesWithin {
public:
    using RuntimeName = RuntimeOpName;
    OpNamesWithin(const std::vector<RuntimeName>& runtimeNames, const AotCapture& capture);
    OpNamesWithin(const RuntimeName* runtimeNames, std::size_t count, const AotCapture& capture);
    std::vector<std::string> runtime(const std::vector<std::int64_t>& target) const;
    std::vector<std::string> aot(const std::vector<std::int64_t>& target) const;

private:
    const RuntimeName* m_runtimeNames;
    const AotCapture* m_capture;
    HandleSubsetIndex m_runtime, m_aot;
};

} // namespace gapscope
