#include "core/common/input_role.h"

namespace gapscope {

const char* inputRoleKey(InputRole role) {
    switch (role) {
    case InputRole::EtDump: return "etdump";
    case InputRole::DebugBuffer: return "debug_buffer";
    case InputRole::EtRecord: return "etrecord";
    case InputRole::Capture: return "capture";
    }
    return "capture";
}

const char* inputRoleLabel(InputRole role) {
    switch (role) {
    case InputRole::EtDump: return "ETDump";
    case InputRole::DebugBuffer: return "debug buffer";
    case InputRole::EtRecord: return "ETRecord";
    case InputRole::Capture: return "AOT capture";
    }
    return "AOT capture";
}

} // namespace gapscope
