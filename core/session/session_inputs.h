#pragma once

#include "core/common/mapped_file.h"

#include <memory>
#include <string>
#include <vector>

namespace gapscope {

// The files of one session, as given (paths or in-memory blobs).
struct SessionInputs {
    std::vector<std::shared_ptr<const MappedFile>> files;
    // The paths the user named one by one (an argument, File → Open, a drop), as
    // opposed to the files of a folder they named: a named file fills its slot
    // where the folder's rules would not choose it (chooseDebugBuffer).
    std::vector<std::string> named;
};

} // namespace gapscope
