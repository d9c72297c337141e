"""Issue 59 on real QNN: the fix of the 8a8w attention block and the stage ladder of
the Llama layer at 16a4w.

usage: check_fix_ladder.py GAPSCOPE_CLI FIX_DIR LLAMA_SESSION

- FIX_DIR (make_qnn_fix.py with snr=45): the target is met; 16a8w on the parts found
  recovers at least half of the gap between 8a8w and the whole block at 16a8w; the
  verified run's output SNR, which the exporter measured, equals Gapscope's on the
  session it wrote (fixed/ against its float reference).
- LLAMA_SESSION (float reference, QNN's graph, the device): `compare --ladder --json`
  orders float model → QNN's graph → device; every device number equals the
  single-reference comparison's with that capture; on the program output the 4-bit
  weights (QNN's graph) lose more than the 16-bit activations and kernels (the device).
"""
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path


def run_json(cli: str, *args: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        subprocess.run([cli, "compare", *args, "--json", str(out)], check=True, capture_output=True)
        return json.loads(out.read_text())


def number(v):
    return math.inf if v == "inf" else -math.inf if v == "-inf" else v


def main() -> int:
    cli, fix_dir, llama = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    fix = json.loads((fix_dir / "fix" / "fix.json").read_text())
    full = json.loads((fix_dir / "full_16a8w.json").read_text())["output_snr_db"]
    base = fix["baseline"]["output_snr_db"]
    best = fix["fixed_session"]["output_snr_db"]
    assert fix["met"], fix["stopped"]
    assert best >= 45 > base, (base, best)
    share = (best - base) / (full - base)
    assert share >= 0.5, f"16a8w on {fix['best']['keep_float']} recovers {share:.0%} of {full - base:.1f} dB"
    fixed = fix_dir / "fix" / "fixed"
    report = run_json(cli, str(fixed), "--capture", str(fixed / "capture_float.gscap.safetensors"))
    measured = report["program_outputs"][0]["metrics"]["snr"]
    assert abs(measured - best) <= 1e-6 * abs(best), (measured, best)
    print(
        f"e2e-qnn: fix: {', '.join(fix['best']['keep_float'])} at 16a8w: {base:.1f} -> {best:.1f} dB "
        f"({share:.0%} of the gap to the whole block at 16a8w, {full:.1f} dB); Gapscope reads {measured:.1f} dB"
    )

    ladder = run_json(cli, str(llama), "--ladder")["ladder"]
    stages = [s["stage"] for s in ladder["stages"]]
    assert stages == ["float", "backend", "device"], stages
    checked = 0
    base_rows = run_json(cli, str(llama))["rows"]  # the rows the ladder is built on
    for s, stage in enumerate(ladder["stages"][:-1]):
        single = run_json(cli, str(llama), "--capture", stage["file"])
        rows = {}
        for r in single["rows"]:  # the first of equal keys, as the ladder takes it
            rows.setdefault((tuple(r["runtime_debug_handle"]), r["output_index"]), r)
        for row in ladder["rows"]:
            if "output" in row:
                continue
            b = base_rows[row["row"]]
            r = rows.get((tuple(b["runtime_debug_handle"]), b["output_index"]))
            want = r["metrics"]["snr"] if r and r["status"] == "ok" and r.get("metrics") else None
            got = row["device_snr_db"][s]
            assert (want is None and got is None) or number(got) == number(want), (stage["stage"], row["name"], got, want)
            checked += 1
    # 4-bit weights cost the layer's output more than 16-bit activations and the HTP's kernels.
    output = next(r for r in ladder["rows"] if "output" in r)
    assert output["lost_most"] == "weights, passes", output
    assert number(output["step_snr_db"][0]) < number(output["step_snr_db"][1]), output
    print(f"e2e-qnn: ladder: {checked} device numbers equal the single comparisons; steps: "
          + ", ".join(f"{s['label']} {s['ops_lost_most']}" for s in ladder["steps"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
