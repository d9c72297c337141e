#pragma once

#include "core/common/diagnostics.h"

#include <cassert>
#include <optional>
#include <utility>

namespace gapscope {

// Errors are values: a loader returns either a T or an Error, never throws for
// bad input. Warnings travel inside T where the format has them.
template <typename T> class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_error(std::move(error)) {}

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }

    const T& value() const& {
        assert(ok());
        return *m_value;
    }
    T& value() & {
        assert(ok());
        return *m_value;
    }
    T&& value() && {
        assert(ok());
        return std::move(*m_value);
    }
    const Error& error() const {
        assert(!ok());
        return m_error;
    }

private:
    std::optional<T> m_value;
    Error m_error;
};

} // namespace gapscope
