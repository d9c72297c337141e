#pragma once

#include "core/compare/comparison.h"

#include <string>
#include <vector>

namespace gapscope::test {

// Runs Gapscope's comparison on a demo session directory and checks that the
// rows ExecuTorch would produce equal ExecuTorch's own calculate_numeric_gap
// tables saved beside it (executorch_gap_{mse,l1,snr}.json): same rows in the
// same order, same handles and op names, gaps within 1e-9 relative.
// With a `method`, a multi-method session: capture.<method>.gscap.safetensors
// against executorch_gap_<metric>.<method>.json.
void checkExecuTorchParity(const std::string& directory, const std::string& method = {});

// The same for a comparison made otherwise (a folder opened by content), against
// executorch_gap_<metric><suffix>.json in `directory` for each metric given.
void checkExecuTorchParity(const Comparison& comparison, const std::string& directory,
                           const std::vector<std::string>& metrics, const std::string& suffix = {});

// Where ExecuTorch's calculate_numeric_gap raises on the whole table (one row's
// comparator fails), its rows and comparators row by row
// (executorch_rows_<metric>.json, zoo.write_executorch_row_tables): every row
// ExecuTorch computes equals Gapscope's `executorch` numbers, and a row whose
// comparator raises has none in Gapscope. Returns how many rows raised.
std::size_t checkExecuTorchRowParity(const Comparison& comparison, const std::string& directory);

} // namespace gapscope::test
