#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

namespace gapscope {

struct ComparisonOptions {
    // The program method compared; empty: the capture's own method.
    std::string method;
    std::optional<std::size_t> run; // RunData index; default: the first run with debug events
    // Set by a job that may be cancelled (the app's loader): planning checks it
    // between its stages and every 256 rows, and a cancelled plan is an Error of
    // code Cancelled. Planning 50,000 rows takes a quarter of a second, which a
    // Cancel or a quit would otherwise wait for. Null: never cancelled.
    const std::atomic<bool>* cancelled = nullptr;
};

} // namespace gapscope
