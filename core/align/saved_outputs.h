#pragma once

#include "core/align/runtime_value.h"
#include "core/capture/safetensors_file.h"
#include "core/common/result.h"

#include <deque>
#include <memory>
#include <vector>

namespace gapscope {

// The method's outputs as the user saved them from the device (issue 58): the
// second way to read a tapped program's values, beside the ETDump's program
// outputs, for a run logged without a debug buffer (a 1,000-step decode's ETDump
// of timings only). A safetensors file whose tensors are named as
// `gapscope-capture --inputs` names its inputs:
//   outputs/<index>              one execution;
//   outputs/<execution>/<index>  several, the execution counted among the
//                                method's executions from 0 (as --all-runs does).
// Indices are the flattened outputs' (a TensorList counted as its tensors), as
// a tap's output_index counts them. Every execution's indices run 0..n-1 with
// none missing; anything else is refused with the tensor's name.
class SavedOutputs {
public:
    static Result<SavedOutputs> read(std::shared_ptr<const MappedFile> file);
    // Whether a safetensors file's tensors are all named like saved outputs.
    static bool namedLikeSavedOutputs(const SafetensorsFile& file);

    const std::string& path() const { return m_file->path(); }
    // How many executions the file holds (1 for the outputs/<index> form).
    std::size_t executions() const { return m_byExecution.size(); }
    // The outputs of `execution`, in index order, each a tensor whose bytes are
    // the file's; empty when the file holds no such execution.
    const std::vector<RuntimeValue>& outputs(std::size_t execution) const;

private:
    std::shared_ptr<const SafetensorsFile> m_file;
    std::deque<Tensor> m_tensors; // stable addresses: RuntimeValue points at them
    std::vector<std::vector<RuntimeValue>> m_byExecution;
};

} // namespace gapscope
