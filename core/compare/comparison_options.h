#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace gapscope {

class SavedOutputs;

struct ComparisonOptions {
    // The program method compared; empty: the capture's own method.
    std::string method;
    std::optional<std::size_t> run; // RunData index; default: the first run with debug events
    // Set by a job that may be cancelled (the app's loader): planning checks it
    // between its stages and every 256 rows, and a cancelled plan is an Error of
    // code Cancelled. Planning 50,000 rows takes a quarter of a second, which a
    // Cancel or a quit would otherwise wait for. Null: never cancelled.
    const std::atomic<bool>* cancelled = nullptr;
    // The method's outputs as the user saved them (saved_outputs.h): the taps'
    // and program outputs' device values, instead of the ETDump's. Null: the ETDump's.
    std::shared_ptr<const SavedOutputs> saved_outputs;
};

} // namespace gapscope
