#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gapscope {

// Where in an input a problem was found. Unknown parts stay at -1 / empty so the
// message only names what is known.
struct Location {
    std::string file;
    std::int64_t byteOffset = -1;
    std::int64_t run = -1;
    std::int64_t event = -1;
    std::string field;

    std::string describe() const;
};

enum class ErrorCode {
    Io,          // cannot open, map or read a file
    Empty,       // zero-length input
    TooLarge,    // beyond what the format or this reader can address
    BadMagic,    // wrong file identifier / container marker
    Truncated,   // the data ends before what its header promises
    Malformed,   // structure fails verification
    Unsupported, // valid but a version/feature we do not read
    Cancelled,   // the progress callback asked to stop
};

const char* errorCodeName(ErrorCode code);

struct Error {
    ErrorCode code = ErrorCode::Malformed;
    std::string message;
    Location where;

    // "file: message (run 0, event 12, field sizes[1], byte 1234)"
    std::string describe() const;
};

enum class WarningCode {
    TrailingBytes,      // bytes after the end the size prefix declares
    EventWithoutMember, // an Event table with no profile/debug/allocation member
    EventWithManyMembers,
    ValuePayloadMissing,   // Value.val names a kind whose payload table is absent
    UnknownValueType,      // Value.val outside ValueType
    UnknownScalarType,     // Tensor.scalar_type outside ScalarType
    InvalidTensorShape,    // negative size, overflowing element count, ...
    StridesRankMismatch,   // strides vector length differs from sizes
    TensorDataMissing,     // offset + nbytes past the end of the debug buffer
    AllocatorIdOutOfRange, // AllocationEvent.allocator_id not in 1..allocators
    UnsupportedVersion,    // ETDump.version newer than the one we know
    MissingEntry,          // an optional part of a container is absent
    UnreadableEntry,       // a container entry could not be read; the rest is used
};

const char* warningCodeName(WarningCode code);

struct Warning {
    WarningCode code;
    std::string message;
    Location where;

    std::string describe() const;
};

using Warnings = std::vector<Warning>;

// The one way readers build errors: what went wrong, in which file, and where.
Error makeError(ErrorCode code, std::string message, std::string file, std::string field = {},
                std::int64_t byteOffset = -1);
// An Io error for a failed system call, with strerror(errno) appended.
Error errnoError(const std::string& file, const std::string& what);

} // namespace gapscope
