#pragma once

#include "core/align/alignment.h"
#include "core/compare/comparison_row.h"
#include "core/compare/metric_catalog.h"

#include <QString>
#include <optional>
#include <string>
#include <vector>

namespace gapscope::op_cell {

// The op table's cell texts (OpTableModel): numbers as the catalog writes them,
// shortened dtypes, handles, a tap's tooltip. Text only, no model state.
QString joined(const std::vector<std::string>& items, const char* sep);
// Per-output texts of a row: one entry when every output shares it ("… ×3").
QString perOutput(const std::vector<std::string>& items);
// "float32 vs uint8 (dequantized)" as "f32 vs u8 (dq)".
QString shortDtypes(QString text);
QString handles(const HandleTuple& h);
// Rich text, so long reasons and op lists wrap in a tooltip.
QString wrapped(const QString& text);
// "NaN", "∞", or three significant digits.
QString number(double v);
// A metric's number, written as the catalog says (MetricFormat); "0/0" for NaN of all-zero tensors.
QString metricNumber(Metric metric, double value, bool zeros);
// A metric's cell: "—" without a value ("…" until measured), a bound with its side.
QString metricText(Metric metric, std::optional<double> value, bool measured, bool zeros, bool bound);
// What a tap row is: ExecuTorch's tap of an op inside a delegate (issue 58).
QString tapTip(const ComparisonRow& r);

} // namespace gapscope::op_cell
