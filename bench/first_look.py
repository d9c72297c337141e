"""The first look: from a device's folder to the table, against ExecuTorch's Inspector (issue 60).

usage: python bench/first_look.py --cli build/release/app/cli/gapscope-cli [--work DIR] [--repeat N]
       [--capture-command "gapscope-capture"] [--only vit|decoder]

A user who gets a folder from a device (ETRecord, ETDump, debug buffer, the
inputs) needs a reference before any number can be shown. ExecuTorch's
Inspector makes its reference itself; Gapscope's exporter writes it once
(``gapscope-capture from-etrecord``) and ``gapscope-cli compare`` reads it.
This measures both first looks on the same files, each side a sequence of
whole processes, interleaved (``--repeat`` rounds):

- Gapscope, as the app does it: the exporter's worker (``gapscope-capture
  serve``) started beforehand, its imports paid (the app starts it when it
  shows a folder without a capture, before the user asks); timed from the
  request to the capture written, then ``gapscope-cli compare`` on the
  session with it (the table and its three metrics, as the Inspector's calls
  make them). ``first_look_over_inspector_*``;
- Gapscope cold, as the command line does it: ``gapscope-capture from-etrecord
  ETRECORD --inputs INPUTS -o CAPTURE`` as a fresh process, imports included,
  then the same compare. ``cold_over_inspector_*``;
- ExecuTorch: ``Inspector(etdump, etrecord, debug_buffer)`` and its three
  ``calculate_numeric_gap`` calls (MSE, L1, SNR), as ``bench/vit_scale.py``.

Both wall seconds and CPU seconds (user + system, from ``wait4``, children
included) are summed over each side's processes. The ratios are of each
side's fastest round; the medians are the spread.

Two sessions, written once into ``--work`` and reused:

- ``vit``: ViT-S/16 on the portable kernels, ``bench/vit_scale.py``'s session
  (written by it if missing);
- ``decoder``: one prefill step of an 8-layer Hugging Face Llama from its
  config (random weights, 512 wide, 16,000-token vocabulary, 16 tokens), on
  the portable kernels: an ETRecord of some 300 MB and a debug buffer of some
  40 MB, the size of issue 60's measurement.

The last line is one JSON object (docs/performance.md). Nothing asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

DECODER_VERSION = "3\n"
HERE = Path(__file__).resolve().parent


def build_decoder(work: Path) -> None:
    """One prefill step of an 8-layer Llama, lowered to the portable kernels, run with a debug buffer."""
    import torch
    import transformers
    from executorch.exir import to_edge_transform_and_lower
    from executorch.extension.pybindings.portable_lib import _load_for_executorch
    from safetensors.torch import save_file
    from torch.export import export

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        hidden_size=512,
        intermediate_size=1024,
        num_hidden_layers=8,
        num_attention_heads=8,
        num_key_value_heads=8,  # ExecuTorch 1.5.1's Inspector raises on GQA's repeat_kv rows
        vocab_size=16000,
        max_position_embeddings=128,
    )
    config._attn_implementation = "sdpa"

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = transformers.LlamaForCausalLM(config).eval()

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, use_cache=False).logits

    model = Logits().eval()
    inputs = (torch.randint(0, config.vocab_size, (1, 16)),)
    program = to_edge_transform_and_lower(export(model, inputs), generate_etrecord=True).to_executorch()
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    work.mkdir(parents=True, exist_ok=True)
    etrecord.save(str(work / "etrecord.bin"))
    (work / "model.pte").write_bytes(program.buffer)
    save_file({"inputs/0": inputs[0].contiguous()}, str(work / "inputs.safetensors"))
    size = 2 << 30
    sys.path.insert(0, str(HERE))
    from vit_scale import _used_bytes  # the end of the last tensor the ETDump places

    for _ in range(2):  # the second run with the buffer the first used, as a user would size it
        runtime = _load_for_executorch(str(work / "model.pte"), enable_etdump=True, debug_buffer_size=size)
        runtime.forward(inputs)
        runtime.write_etdump_result_to_file(str(work / "run.etdp"), str(work / "run.debug.bin"))
        del runtime
        size = (_used_bytes(work / "run.etdp") + (1 << 20)) & ~((1 << 20) - 1)
    (work / "ready").write_text(DECODER_VERSION)


def measure(command: list[str]) -> dict[str, float]:
    """Wall and CPU seconds (user + system) and peak RSS (MiB) of one process."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 3):  # 3: a gate tripped, still a full run
        raise SystemExit(f"{command[0]} failed ({code}): {stderr[-2000:]}")
    return {"wall": seconds, "cpu": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024.0}


def measure_worker(command: list[str], etrecord: Path, output: Path) -> dict[str, float]:
    """The app's route: the exporter's worker (``serve``) started and ready before the
    request, as the app starts it when it shows a folder without a capture. Wall
    seconds from the request to ``done``; CPU seconds the worker spent after it said
    ready (its whole CPU from ``wait4`` less the ``startup_cpu_seconds`` it reported)."""
    process = subprocess.Popen(
        command + ["serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    ready = json.loads(process.stdout.readline())
    started = time.monotonic()
    process.stdin.write(json.dumps({"etrecord": str(etrecord), "output": str(output)}) + "\n")
    process.stdin.flush()
    last: dict = {}
    for line in process.stdout:
        last = json.loads(line)
        if last.get("event") in ("done", "error"):
            break
    seconds = time.monotonic() - started
    _, status, usage = os.wait4(process.pid, 0)
    if last.get("event") != "done":
        raise SystemExit(f"the worker failed: {last}")
    cpu = usage.ru_utime + usage.ru_stime - ready["startup_cpu_seconds"]
    return {"wall": seconds, "cpu": cpu, "startup_cpu": ready["startup_cpu_seconds"], "peak_mib": usage.ru_maxrss / 1024.0}


def first_looks(name: str, work: Path, args: argparse.Namespace) -> dict:
    capture = work / "first-look" / "capture.gscap.safetensors"
    capture.parent.mkdir(exist_ok=True)
    make = shlex.split(args.capture_command) + ["from-etrecord", str(work / "etrecord.bin"), "-o", str(capture)]
    if (work / "inputs.safetensors").exists():
        make += ["--inputs", str(work / "inputs.safetensors")]
    compare = [
        str(args.cli), "compare", "--etdump", str(work / "run.etdp"), "--debug-buffer",
        str(work / "run.debug.bin"), "--etrecord", str(work / "etrecord.bin"), "--capture", str(capture),
    ]
    inspector = [sys.executable, __file__, "--work", str(work), "--inspector-only"]
    rounds: dict[str, list[dict[str, float]]] = {"capture": [], "worker": [], "compare": [], "inspector": []}
    for _ in range(args.repeat):  # interleaved: both sides see the same machine
        capture.unlink(missing_ok=True)
        rounds["capture"].append(measure(make))
        capture.unlink()
        rounds["worker"].append(measure_worker(shlex.split(args.capture_command), work / "etrecord.bin", capture))
        rounds["compare"].append(measure(compare))
        rounds["inspector"].append(measure(inspector))

    def summed(captures: list[dict[str, float]]) -> list[dict[str, float]]:
        return [
            {k: c[k] + t[k] for k in ("wall", "cpu")} | {"peak_mib": max(c["peak_mib"], t["peak_mib"])}
            for c, t in zip(captures, rounds["compare"])
        ]

    gapscope, app = summed(rounds["capture"]), summed(rounds["worker"])
    best = lambda runs, k: min(r[k] for r in runs)  # noqa: E731
    med = lambda runs, k: statistics.median(r[k] for r in runs)  # noqa: E731
    out = {
        "session": name,
        "etrecord_mib": round((work / "etrecord.bin").stat().st_size / 2**20, 1),
        "debug_buffer_mib": round((work / "run.debug.bin").stat().st_size / 2**20, 1),
        # The app's route: the worker's imports paid before the user asks (the target's figure).
        "first_look_over_inspector_wall": round(best(rounds["inspector"], "wall") / best(app, "wall"), 2),
        "first_look_over_inspector_cpu": round(best(rounds["inspector"], "cpu") / best(app, "cpu"), 2),
        "median_wall": round(med(rounds["inspector"], "wall") / med(app, "wall"), 2),
        "median_cpu": round(med(rounds["inspector"], "cpu") / med(app, "cpu"), 2),
        # The command line's route: every process cold, the exporter's imports included.
        "cold_over_inspector_wall": round(best(rounds["inspector"], "wall") / best(gapscope, "wall"), 2),
        "cold_over_inspector_cpu": round(best(rounds["inspector"], "cpu") / best(gapscope, "cpu"), 2),
        "worker_startup_cpu": round(med(rounds["worker"], "startup_cpu"), 2),
    }
    for side, runs in rounds.items():
        out[side] = {
            "wall": [round(r["wall"], 2) for r in runs],
            "cpu": [round(r["cpu"], 2) for r in runs],
            "peak_mib": round(med(runs, "peak_mib"), 1),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", type=Path, help="gapscope-cli (a release build)")
    parser.add_argument("--work", type=Path, default=Path("build/bench-first-look"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--capture-command", default=f"{shlex.quote(sys.executable)} -m gapscope_capture")
    parser.add_argument("--only", choices=("vit", "decoder"))
    parser.add_argument("--inspector-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inspector_only:
        sys.path.insert(0, str(HERE))
        from vit_scale import run_inspector  # the same three calls as the ViT-S/16 benchmark

        run_inspector(args.work)
        return 0
    if args.build_only:
        build_decoder(args.work)
        return 0
    if args.cli is None:
        parser.error("--cli is required")
    results = []
    for name in ("vit", "decoder"):
        if args.only not in (None, name):
            continue
        work = args.work / name
        if name == "vit":
            if not (work / "ready").exists():
                subprocess.run(
                    [sys.executable, str(HERE / "vit_scale.py"), "--cli", str(args.cli), "--work", str(work), "--build-only"],
                    check=True,
                )
        elif not (work / "ready").exists() or (work / "ready").read_text() != DECODER_VERSION:
            # In a process of its own, so that this one's peak stays small.
            subprocess.run([sys.executable, __file__, "--work", str(work), "--build-only"], check=True)
        results.append(first_looks(name, work, args))
        print(json.dumps(results[-1]), file=sys.stderr)
    out = {"benchmark": "first_look_vs_executorch_inspector", "repeat": args.repeat}
    for r in results:
        out[r["session"]] = r
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
