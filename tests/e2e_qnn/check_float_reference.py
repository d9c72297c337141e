"""Check a QNN session compared against its float reference (issue 54).

usage: check_float_reference.py QUANTISED_JSON FLOAT_JSON

QUANTISED_JSON is `gapscope-cli compare` against the debugger's capture (the
quantised simulation), FLOAT_JSON against capture_float.gscap.safetensors (the
float model under the same debug handles). Checks:
- the float report has no warning (its handles are the QNN graph's);
- at least 90% of the quantised report's ok rows are ok against the float model
  too, and every float row that is not ok says why;
- the float model shows the recipe's error: its median SNR is at least 10 dB
  below the quantised simulation's on the rows both compare.
Prints a summary line; exits 1 on a failure.
"""
import json
import statistics
import sys


def rows_by_handle(report):
    return {(tuple(r["aot_debug_handle"]), r["output_index"]): r for r in report["rows"]}


def snr(row):
    value = row["metrics"].get("snr")
    return value if isinstance(value, float) else None


def main():
    quantised = json.load(open(sys.argv[1]))
    floating = json.load(open(sys.argv[2]))
    failures = []
    if floating["warnings"]:
        failures.append(f"warnings: {floating['warnings']}")
    q_rows, f_rows = rows_by_handle(quantised), rows_by_handle(floating)
    q_ok = [key for key, row in q_rows.items() if row["status"] == "ok"]
    both = [key for key in q_ok if key in f_rows and f_rows[key]["status"] == "ok"]
    if len(both) < 0.9 * len(q_ok):
        failures.append(f"{len(both)} of {len(q_ok)} quantised ok rows are ok against the float model")
    for key, row in f_rows.items():
        if row["status"] != "ok" and not row.get("reason"):
            failures.append(f"row {key} is {row['status']} without a reason")
    pairs = [(snr(q_rows[k]), snr(f_rows[k])) for k in both]
    pairs = [(q, f) for q, f in pairs if q is not None and f is not None]
    q_median = statistics.median(q for q, _ in pairs)
    f_median = statistics.median(f for _, f in pairs)
    if not f_median <= q_median - 10:
        failures.append(f"median SNR {f_median:.1f} dB against the float model, {q_median:.1f} against the simulation")
    print(
        f"float reference: {len(both)} of {len(q_ok)} rows ok against both; median SNR "
        f"{f_median:.1f} dB against the float model, {q_median:.1f} dB against the quantised simulation"
    )
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
