"""A tapped QNN session's report against ExecuTorch's own tap table (issue 58).

usage: check_taps.py SESSION_DIR GAPSCOPE_JSON

Each tap of ``executorch_taps.json`` (``compare_aot_runtime_dataframe``) is a row
of Gapscope's report: ok, nested under a row of the QNN delegate, its
``executorch_sqnr_db`` equal to ExecuTorch's ``sqnr_db`` (FULL_TENSOR), its
fields the runtime's and the reference's own values as float32 (STATS).
"""
import json
import math
import struct
import sys
from pathlib import Path


def number(v):
    if isinstance(v, str):
        return {"inf": math.inf, "-inf": -math.inf}.get(v, math.nan)
    return float(v)


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0] if math.isfinite(v) else v


def main() -> int:
    session, report = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
    theirs = json.loads((session / "executorch_taps.json").read_text())
    rows = report["rows"]
    taps = {r["tap"]["output_index"]: r for r in rows if r.get("tap")}
    problems = []
    if len(taps) != len(theirs) or not theirs:
        problems.append(f"{len(taps)} tap rows, ExecuTorch's table has {len(theirs)}")
    compared = 0
    for t in theirs:
        row = taps.get(t["output_index"])
        if row is None:
            problems.append(f"output {t['output_index']} ({t['node_name']}): no tap row")
            continue
        tap = row["tap"]
        if row["status"] != "ok":
            problems.append(f"{t['node_name']}: status {row['status']} ({row.get('reason')})")
        holder = tap["nested_in"]
        # A QNN tensor's row: its runtime op is "<node>@<output>" (shared/qnn-x86/README.md).
        if holder is None or not any("@" in op for op in rows[holder]["runtime_ops"]):
            problems.append(f"{t['node_name']}: not nested in a row of the QNN delegate ({holder})")
        if tap["reducer"] == "FULL_TENSOR":
            ours, want = tap["executorch_sqnr_db"], number(t["sqnr_db"])
            if ours is None or not math.isclose(ours, want, rel_tol=1e-5):
                problems.append(f"{t['node_name']}: SQNR {ours} dB, ExecuTorch's {want} dB")
        else:
            for field in tap["fields"] or []:
                for side, key in (("runtime", "rt_"), ("reference", "aot_")):
                    a, b = f32(number(field[side])), f32(number(t[key + field["name"]]))
                    if not (a == b or (math.isnan(a) and math.isnan(b))):
                        problems.append(f"{t['node_name']}: {side} {field['name']} {a}, ExecuTorch's {b}")
        compared += 1
    for p in problems:
        print(f"check_taps: {session}: {p}")
    print(f"check_taps: {session}: {compared} taps compared with ExecuTorch's table, {len(problems)} problems")
    return 1 if problems or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
