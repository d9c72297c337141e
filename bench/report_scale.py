#!/usr/bin/env python3
"""Saved reports at scale (issue 55, class 8): `diff` and `--baseline` on a report
of N rows and of 10 N rows, wall time and peak anonymous memory (peak_anon.py),
side by side in one run. Linear work gives a time ratio near 10; the memory a
row costs stays flat, since the diff is written pair by pair. Prints one JSON
object last.

usage: report_scale.py --cli GAPSCOPE_CLI --demo DEMO_DIR --work DIR [--rows N]
"""
import argparse
import copy
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def measure(command: list[str]) -> dict:
    out = subprocess.run([sys.executable, str(HERE / "peak_anon.py"), *command], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def scaled(report: dict, rows: int) -> dict:
    """The report's rows repeated as `rows` distinct ops of one program."""
    big = copy.copy(report)
    template = report["rows"]
    out = []
    for i in range(rows):
        row = copy.copy(template[i % len(template)])
        row.update(index=i, aot_debug_handle=[i + 1], runtime_debug_handle=[i + 1], aot_ops=[f"op_{i}"],
                   runtime_ops=[f"native_call_op_{i}"], instruction_id=i)
        out.append(row)
    big.update(rows=out, first_divergence=None, introducers=[])
    return big


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--demo", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--rows", type=int, default=20000)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    small = work / "small.json"
    subprocess.run([args.cli, "compare", args.demo, "--json", str(small)], check=True, capture_output=True)
    report = json.loads(small.read_text())
    result = {"benchmark": "report_scale", "rows": [args.rows, 10 * args.rows]}
    for n in (args.rows, 10 * args.rows):
        path = work / f"rows-{n}.json"
        path.write_text(json.dumps(scaled(report, n)))
        for name, command in (
            ("diff_self", [args.cli, "diff", str(path), str(path), "--json", str(work / "d-self.json")]),
            ("diff_small", [args.cli, "diff", str(small), str(path), "--json", str(work / "d-small.json")]),
            ("baseline", [args.cli, "compare", args.demo, "--baseline", str(path), "--json", str(work / "b.json")]),
        ):
            m = measure(command)
            result[f"{name}_{n}"] = {"wall_s": m["seconds"], "peak_anon_mib": m["peak_anon_mib"],
                                     "input_mib": round(path.stat().st_size / 2**20, 1)}
    for name in ("diff_self", "diff_small", "baseline"):
        a, b = result[f"{name}_{args.rows}"], result[f"{name}_{10 * args.rows}"]
        result[f"{name}_time_ratio"] = round(b["wall_s"] / max(a["wall_s"], 1e-3), 2)
        result[f"{name}_memory_ratio"] = round(b["peak_anon_mib"] / max(a["peak_anon_mib"], 1e-3), 2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
