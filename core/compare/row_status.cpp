#include "core/compare/row_status.h"

namespace gapscope {

const char* rowStatusName(RowStatus status) {
    switch (status) {
    case RowStatus::Ok: return "ok";
    case RowStatus::Broadcast: return "broadcast";
    case RowStatus::MissingData: return "missing_data";
    case RowStatus::Invalid: return "invalid";
    }
    return "invalid";
}

} // namespace gapscope
