#pragma once

#include "core/common/diagnostics.h"

#include <string>

namespace gapscope {

// A fault in what a document means: the JSON path of the field and what is
// wrong with it. The readers throw it; the entry points turn it into an Error.
struct JsonFault {
    std::string field;
    std::string message;
    ErrorCode code = ErrorCode::Malformed;
};

} // namespace gapscope
