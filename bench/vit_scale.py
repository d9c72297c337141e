"""Scale case: Gapscope against ExecuTorch's Inspector on a ViT-S/16 session.

usage: python bench/vit_scale.py --cli build/release/app/cli/gapscope-cli [--work DIR] [--repeat N]

In a Python environment with the exporter, torch 2.13.0 and ExecuTorch 1.5.1
(e.g. the end-to-end venv, build/<preset>/e2e/venv). Writes, once, a seeded
ViT-S/16 (224x224, 16x16 patches, 384 wide, 6 heads, 12 blocks) lowered to the
portable kernels, run with ETDump and a debug buffer, and captured with
``gapscope-capture``; later runs reuse it. Then measures, side by side in one
run, each as its own process (whole-process wall time and peak resident memory
from ``wait4``):

- Gapscope: ``gapscope-cli compare --json`` on the session;
- ExecuTorch: ``Inspector(etdump, etrecord, debug_buffer)`` and its three
  ``calculate_numeric_gap`` calls (MSE, L1, SNR), as a user runs them. The
  Inspector captures the reference itself while Gapscope reads the capture
  written beforehand: capturing is the exporter's step, done once per model.

The figures are printed as one JSON object on the last line
(docs/performance.md). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Enough for every intermediate of ViT-S/16; the session is then run again with
# a buffer of what the first run used (rounded up to 1 MiB), the size a user
# would pick, since the runtime writes the whole buffer to the file.
PROBE_BUFFER_SIZE = 2 << 30
# Written into `ready` once the session is complete; a session written by an
# older version is written again. 2: the capture names the ETRecord's entries
# (etrecord_entries_sha256), as every capture the exporter writes now does.
SESSION_VERSION = "2\n"


def build_session(work: Path) -> None:
    import torch
    from executorch.exir import to_edge_transform_and_lower
    from executorch.extension.pybindings.portable_lib import _load_for_executorch
    from torch.export import export

    from gapscope_capture.capture import capture_from_etrecord
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))  # the test fixtures (gapscope_zoo)
    from gapscope_zoo.zoo import ViT

    torch.manual_seed(0)
    model = ViT(dim=384, heads=6, depth=12, classes=1000, image=224, patch=16, mlp_ratio=4).eval()
    inputs = (torch.randn(1, 3, 224, 224),)
    program = to_edge_transform_and_lower(export(model, inputs), generate_etrecord=True).to_executorch()
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(work / "etrecord.bin"))
    (work / "model.pte").write_bytes(program.buffer)
    size = PROBE_BUFFER_SIZE
    for _ in range(2):
        runtime = _load_for_executorch(
            str(work / "model.pte"), enable_etdump=True, debug_buffer_size=size
        )
        runtime.forward(inputs)
        runtime.write_etdump_result_to_file(str(work / "run.etdp"), str(work / "run.debug.bin"))
        del runtime
        size = (_used_bytes(work / "run.etdp") + (1 << 20)) & ~((1 << 20) - 1)
    capture_from_etrecord(work / "etrecord.bin").write(work / "capture.gscap.safetensors")
    (work / "ready").write_text(SESSION_VERSION)


def _used_bytes(etdump: Path) -> int:
    """The end of the last tensor the ETDump places in the debug buffer."""
    from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc

    end = 0
    for run in deserialize_from_etdump_flatcc(etdump.read_bytes()).run_data or []:
        for event in run.events or []:
            value = event.debug_event.debug_entry if event.debug_event else None
            tensors = []
            if value is not None and value.tensor is not None:
                tensors = [value.tensor]
            elif value is not None and value.tensor_list is not None:
                tensors = value.tensor_list.tensors
            for t in tensors:
                if t.offset >= 0:
                    numel = 1
                    for s in t.sizes:
                        numel *= s
                    end = max(end, t.offset + numel * _ELEMENT_BYTES.get(int(t.scalar_type), 8))
    return end


# ExecuTorch ScalarType → bytes per element (8, the widest, for any other).
_ELEMENT_BYTES = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 15: 2}


def run_inspector(work: Path) -> None:
    """The ExecuTorch side, in its own process."""
    from executorch.devtools import Inspector

    inspector = Inspector(
        etdump_path=str(work / "run.etdp"),
        etrecord=str(work / "etrecord.bin"),
        debug_buffer_path=str(work / "run.debug.bin"),
    )
    rows = [len(inspector.calculate_numeric_gap(m)) for m in ("MSE", "L1", "SNR")]
    print(json.dumps({"rows": rows}))


def measure(command: list[str]) -> dict[str, float]:
    """Wall seconds and peak RSS (MiB) of one process, its children included.

    The peak counts mapped file pages the process touched (Gapscope maps its
    inputs), and at least this small parent's own peak.
    """
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if process.returncode not in (0, 3):  # 3: a gate tripped, still a full run
        raise SystemExit(f"{command[0]} failed ({process.returncode}): {stderr[-2000:]}")
    return {"seconds": seconds, "peak_mib": usage.ru_maxrss / 1024.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True, type=Path, help="gapscope-cli (a release build)")
    parser.add_argument("--work", type=Path, default=Path("build/bench-vit"), help="session folder")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (the fastest counts)")
    parser.add_argument("--inspector-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inspector_only:
        run_inspector(args.work)
        return 0
    if args.build_only:
        build_session(args.work)
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    ready = args.work / "ready"
    if not ready.exists() or ready.read_text() != SESSION_VERSION:
        # In its own process: Linux counts the peak memory of the process that
        # starts a child in the child's, so this one stays small (no torch).
        started = time.monotonic()
        subprocess.run(
            [sys.executable, __file__, "--cli", str(args.cli), "--work", str(args.work), "--build-only"],
            check=True,
        )
        print(f"session written in {time.monotonic() - started:.0f} s", file=sys.stderr)
    w = args.work
    gapscope = [
        str(args.cli), "compare", "--etdump", str(w / "run.etdp"), "--debug-buffer",
        str(w / "run.debug.bin"), "--etrecord", str(w / "etrecord.bin"), "--capture",
        str(w / "capture.gscap.safetensors"),
    ]
    # The plain compare prints the tables, as the Inspector's three calls make
    # them; the JSON report also hashes every input (SHA-256, for provenance),
    # so it is timed as a figure of its own.
    gapscope_report = gapscope + ["--json", str(w / "report.json")]
    executorch = [sys.executable, __file__, "--cli", str(args.cli), "--work", str(w), "--inspector-only"]
    runs: dict[str, list[dict[str, float]]] = {"gapscope": [], "gapscope_report": [], "executorch": []}
    for _ in range(args.repeat):  # interleaved: both sides see the same machine state
        runs["gapscope"].append(measure(gapscope))
        runs["gapscope_report"].append(measure(gapscope_report))
        runs["executorch"].append(measure(executorch))
    median = {
        side: {k: statistics.median(r[k] for r in rs) for k in ("seconds", "peak_mib")}
        for side, rs in runs.items()
    }
    # The speed-ups are the ratios of each side's fastest run, as for the
    # metrics (docs/performance.md, "Tenth step"): this machine's noise only
    # ever adds time, and a third of a second of Gapscope loses a tenth of itself
    # to a busy moment. The medians and every run's seconds are the spread.
    fastest = {side: min(r["seconds"] for r in rs) for side, rs in runs.items()}
    rows = len(json.loads((w / "report.json").read_text())["rows"])
    result = {
        "benchmark": "vit_s16_portable_vs_executorch_inspector",
        "debug_buffer_mib": round((w / "run.debug.bin").stat().st_size / 2**20, 1),
        "etdump_kib": round((w / "run.etdp").stat().st_size / 1024, 1),
        "rows": rows,
        "repeat": args.repeat,
        "gapscope_seconds": round(fastest["gapscope"], 3),
        "executorch_seconds": round(fastest["executorch"], 3),
        "speedup": round(fastest["executorch"] / fastest["gapscope"], 1),
        "speedup_median": round(median["executorch"]["seconds"] / median["gapscope"]["seconds"], 1),
        "gapscope_report_seconds": round(fastest["gapscope_report"], 3),
        "speedup_with_report": round(fastest["executorch"] / fastest["gapscope_report"], 1),
        "runs_seconds": {side: [round(r["seconds"], 3) for r in rs] for side, rs in runs.items()},
        "gapscope_peak_mib": round(median["gapscope"]["peak_mib"], 1),
        "executorch_peak_mib": round(median["executorch"]["peak_mib"], 1),
        "memory_ratio": round(median["executorch"]["peak_mib"] / median["gapscope"]["peak_mib"], 1),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
