"""Peak memory of step captures: one step against many (issue 54).

``gapscope-capture from-etrecord ETRECORD --inputs S0 … --inputs S64 -o DIR``
captures a decode loop step by step, the KV cache carried from each step to the
next. Issue 54 measured 9.85 GB for 65 steps of an 8-layer decoder whose single
step peaked at 0.89 GB: every step was held until the end, each output with its
autograd graph. The target: 65 steps within 1.5x one step's peak.

This script builds an 8-layer KV-cache decoder (about 25 M parameters, seeded,
nothing downloaded), exports it with an ETRecord, writes one inputs file per
step, and runs the exporter's own command twice as separate processes, one step
and STEPS steps, side by side; it prints one JSON object with both peaks (the
child's maximum resident set) and their ratio.

usage: python bench/step_capture_memory.py WORKDIR [--steps 65] [--exporter gapscope-capture]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import torch
from safetensors.torch import save_file

LAYERS = 8
DIM = 512
HEADS = 8


class Layer(torch.nn.Module):
    """Pre-norm attention over a KV cache in buffers, then a SiLU MLP: one token per execution."""

    def __init__(self, positions: int) -> None:
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(DIM)
        self.norm2 = torch.nn.LayerNorm(DIM)
        self.qkv = torch.nn.Linear(DIM, 3 * DIM, bias=False)
        self.out = torch.nn.Linear(DIM, DIM, bias=False)
        self.up = torch.nn.Linear(DIM, 4 * DIM, bias=False)
        self.down = torch.nn.Linear(4 * DIM, DIM, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, HEADS, positions, DIM // HEADS))
        self.register_buffer("v_cache", torch.zeros(1, HEADS, positions, DIM // HEADS))
        self.register_buffer("slots", torch.arange(positions))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.norm1(x)).split(DIM, dim=-1)
        heads = lambda t: t.view(1, 1, HEADS, DIM // HEADS).transpose(1, 2)  # noqa: E731
        self.k_cache.index_copy_(2, pos, heads(k))
        self.v_cache.index_copy_(2, pos, heads(v))
        scores = heads(q) @ self.k_cache.transpose(2, 3) / math.sqrt(DIM // HEADS)
        scores = scores.masked_fill(self.slots > pos, float("-inf"))
        attended = (torch.softmax(scores, dim=-1) @ self.v_cache).transpose(1, 2).reshape(1, 1, DIM)
        x = x + self.out(attended)
        return x + self.down(torch.nn.functional.silu(self.up(self.norm2(x))))


class Decoder(torch.nn.Module):
    def __init__(self, positions: int) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(Layer(positions) for _ in range(LAYERS))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, pos)
        return x


def peak_of(command: list[str]) -> tuple[float, float]:
    """Runs `command`; its peak resident set in MiB and its wall seconds."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(command)} failed:\n{process.stderr.read().decode()}")
    return usage.ru_maxrss / 1024, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--steps", type=int, default=65)
    parser.add_argument("--exporter", default="gapscope-capture", help="the command, split at spaces")
    args = parser.parse_args()
    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)

    from executorch.exir import to_edge_transform_and_lower
    from torch.export import export

    torch.manual_seed(0)
    model = Decoder(args.steps).eval()
    steps = [(torch.randn(1, 1, DIM), torch.tensor([t])) for t in range(args.steps)]
    with torch.no_grad():
        exported = export(model, steps[0])
    program = to_edge_transform_and_lower(exported, generate_etrecord=True).to_executorch()
    program.get_etrecord().save(str(work / "etrecord.bin"))
    inputs = []
    for k, (x, pos) in enumerate(steps):
        path = work / f"inputs.step{k}.safetensors"
        save_file({"inputs/0": x, "inputs/1": pos}, str(path))
        inputs += ["--inputs", str(path)]
    parameters = sum(p.numel() for p in model.parameters())

    base = [*args.exporter.split(), "from-etrecord", str(work / "etrecord.bin")]
    one, one_wall = peak_of([*base, *inputs[:2], "-o", str(work / "one.gscap.safetensors")])
    many, many_wall = peak_of([*base, *inputs, "-o", str(work / "steps")])
    print(
        json.dumps(
            {
                "layers": LAYERS,
                "parameters": parameters,
                "steps": args.steps,
                "one_step_peak_mib": round(one, 1),
                "all_steps_peak_mib": round(many, 1),
                "ratio": round(many / one, 3),
                "one_step_wall_s": round(one_wall, 1),
                "all_steps_wall_s": round(many_wall, 1),
                "met": many <= 1.5 * one,
            }
        )
    )


if __name__ == "__main__":
    main()
