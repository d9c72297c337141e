#pragma once

#include "core/common/mapped_file.h"
#include "core/common/progress.h"
#include "core/common/result.h"
#include "core/etrecord/etrecord_model.h"

#include <memory>
#include <string>

namespace gapscope {

// Reads an ETRecord zip (§4): the JSON maps and the torch.export graphs, in the
// current multi-method layout and the legacy single-method one. Never touches the
// pickled companions (state dicts, constants, example/representative inputs,
// reference outputs); it only notes whether they are there.
// Progress counts archive entries read; false cancels.
Result<EtRecord> readEtRecord(std::shared_ptr<const MappedFile> file, ProgressFn progress = {});
Result<EtRecord> loadEtRecord(const std::string& path, ProgressFn progress = {});

} // namespace gapscope
