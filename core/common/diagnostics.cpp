#include "core/common/diagnostics.h"

#include <cerrno>
#include <cstring>

namespace gapscope {

std::string Location::describe() const {
    std::string parts;
    auto add = [&parts](const std::string& part) {
        if (!parts.empty())
            parts += ", ";
        parts += part;
    };
    if (run >= 0)
        add("run " + std::to_string(run));
    if (event >= 0)
        add("event " + std::to_string(event));
    if (!field.empty())
        add("field " + field);
    if (byteOffset >= 0)
        add("byte " + std::to_string(byteOffset));
    return parts;
}

namespace {
std::string withLocation(const std::string& message, const Location& where) {
    std::string out;
    if (!where.file.empty())
        out = where.file + ": ";
    out += message;
    const std::string loc = where.describe();
    if (!loc.empty())
        out += " (" + loc + ")";
    return out;
}
} // namespace

Error makeError(ErrorCode code, std::string message, std::string file, std::string field,
                std::int64_t byteOffset) {
    Error e;
    e.code = code;
    e.message = std::move(message);
    e.where.file = std::move(file);
    e.where.field = std::move(field);
    e.where.byteOffset = byteOffset;
    return e;
}

Error errnoError(const std::string& file, const std::string& what) {
    return makeError(ErrorCode::Io, what + ": " + std::strerror(errno), file);
}

std::string Error::describe() const {
    return withLocation(message, where);
}
std::string Warning::describe() const {
    return withLocation(message, where);
}

const char* errorCodeName(ErrorCode code) {
    switch (code) {
    case ErrorCode::Io: return "io";
    case ErrorCode::Empty: return "empty";
    case ErrorCode::TooLarge: return "too_large";
    case ErrorCode::BadMagic: return "bad_magic";
    case ErrorCode::Truncated: return "truncated";
    case ErrorCode::Malformed: return "malformed";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Cancelled: return "cancelled";
    }
    return "unknown";
}

const char* warningCodeName(WarningCode code) {
    switch (code) {
    case WarningCode::TrailingBytes: return "trailing_bytes";
    case WarningCode::EventWithoutMember: return "event_without_member";
    case WarningCode::EventWithManyMembers: return "event_with_many_members";
    case WarningCode::ValuePayloadMissing: return "value_payload_missing";
    case WarningCode::UnknownValueType: return "unknown_value_type";
    case WarningCode::UnknownScalarType: return "unknown_scalar_type";
    case WarningCode::InvalidTensorShape: return "invalid_tensor_shape";
    case WarningCode::StridesRankMismatch: return "strides_rank_mismatch";
    case WarningCode::TensorDataMissing: return "tensor_data_missing";
    case WarningCode::AllocatorIdOutOfRange: return "allocator_id_out_of_range";
    case WarningCode::UnsupportedVersion: return "unsupported_version";
    case WarningCode::MissingEntry: return "missing_entry";
    case WarningCode::UnreadableEntry: return "unreadable_entry";
    }
    return "unknown";
}

} // namespace gapscope
