"""The zoo's multi-method program: a tiny decoder LM exported with two methods.

An LLM is exported with several methods (``prefill`` over the prompt and
``forward`` for one step), each numbering its debug handles from 1, and one
ETDump holds the runs of all of them without saying which run is which
method. ExecuTorch 1.5.1's Inspector raises on such an ETRecord (it reads
``edge_dialect_program`` as a single program), so for parity each method is
also exported alone, run on the same inputs and compared by the Inspector:
the same graph gives the same debug handles, instruction ids and runtime
values, so its tables are what ExecuTorch would say about that method.

Written into the session folder: ``model.pte``, ``etrecord.bin``, ``run.etdp``
and ``run.debug.bin`` (runs: prefill, then forward), one capture per method
(``capture.<method>.gscap.safetensors``), ``executorch_error.txt`` (the
Inspector's failure on the multi-method files) and, per method,
``executorch_gap_{mse,l1,snr}.<method>.json``.
"""

from __future__ import annotations

import json
import logging
import math
import tempfile
from pathlib import Path
from typing import Any

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.devtools import Inspector
from executorch.exir import to_edge_transform_and_lower
from executorch.extension.pybindings.portable_lib import _load_for_executorch
from torch.export import export

from gapscope_capture.capture import capture_from_etrecord
from gapscope_zoo.demo import METRICS, gap_rows

log = logging.getLogger(__name__)

VARIANTS = ("portable", "fp32")
METHODS = ("prefill", "forward")  # the order they run in
# The edge program of every method: the ETRecord's ATen program is forward's only.
REFERENCE_GRAPH = "edge_dialect_exported_program"
PROMPT = 8
DEBUG_BUFFER_SIZE = 1 << 20


class TinyLM(torch.nn.Module):
    """Token embedding, RMSNorm, single-head causal attention, a SiLU-gated MLP and a head."""

    def __init__(self, seq: int, vocab: int = 64, dim: int = 32) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.norm = torch.nn.Parameter(torch.ones(dim))
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.gate = torch.nn.Linear(dim, 2 * dim, bias=False)
        self.up = torch.nn.Linear(dim, 2 * dim, bias=False)
        self.down = torch.nn.Linear(2 * dim, dim, bias=False)
        self.head = torch.nn.Linear(dim, vocab, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + self.mask
        x = x + torch.softmax(scores, dim=-1) @ v
        x = x + self.down(torch.nn.functional.silu(self.gate(x)) * self.up(x))
        return self.head(x[:, -1])


def method_models() -> dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]:
    """Each method's module (shared weights) and its seeded inputs."""
    torch.manual_seed(0)
    prefill = TinyLM(PROMPT).eval()
    step = TinyLM(1).eval()
    # The weights are shared; the causal mask is each length's own.
    step.load_state_dict(
        {k: v for k, v in prefill.state_dict().items() if k != "mask"}, strict=False
    )
    tokens = torch.randint(0, 64, (1, PROMPT))
    return {"prefill": (prefill, (tokens,)), "forward": (step, (tokens[:, -1:],))}


def write_session(directory: Path, variant: str) -> Path:
    """Lower both methods into one program, run each once, capture each, pin ExecuTorch."""
    directory.mkdir(parents=True, exist_ok=True)
    models = method_models()
    partitioners = [] if variant == "portable" else [XnnpackPartitioner()]
    program = to_edge_transform_and_lower(
        {m: export(model, inputs) for m, (model, inputs) in models.items()},
        partitioner=partitioners,
        generate_etrecord=True,
    ).to_executorch()
    program.get_etrecord().save(str(directory / "etrecord.bin"))
    (directory / "model.pte").write_bytes(program.buffer)
    runtime = _load_for_executorch(
        str(directory / "model.pte"), enable_etdump=True, debug_buffer_size=DEBUG_BUFFER_SIZE
    )
    for method in METHODS:
        runtime.run_method(method, models[method][1])
    runtime.write_etdump_result_to_file(str(directory / "run.etdp"), str(directory / "run.debug.bin"))
    for method in METHODS:
        capture_from_etrecord(
            directory / "etrecord.bin",
            inputs=models[method][1],
            reference_graph=REFERENCE_GRAPH,
            method=method,
        ).write(directory / f"capture.{method}.gscap.safetensors")

    try:
        Inspector(
            etdump_path=str(directory / "run.etdp"),
            etrecord=str(directory / "etrecord.bin"),
            debug_buffer_path=str(directory / "run.debug.bin"),
        )
    except Exception as exc:  # noqa: BLE001 - ExecuTorch's failure is a result to pin
        (directory / "executorch_error.txt").write_text(f"{type(exc).__name__}: {exc}\n")
    for method in METHODS:
        model, inputs = models[method]
        for metric, rows in _tables_alone(model, inputs, partitioners).items():
            _write_json(directory / f"executorch_gap_{metric.lower()}.{method}.json", rows)
    return directory


def _tables_alone(model: torch.nn.Module, inputs: tuple[Any, ...], partitioners: list[Any]) -> dict:
    """ExecuTorch's gap tables for one method exported, run and inspected on its own."""
    from gapscope_capture.host_run import lower_and_run

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lower_and_run(work, export(model, inputs), inputs, partitioners, DEBUG_BUFFER_SIZE)
        inspector = Inspector(
            etdump_path=str(work / "run.etdp"),
            etrecord=str(work / "etrecord.bin"),
            debug_buffer_path=str(work / "run.debug.bin"),
        )
        return {
            m: gap_rows(inspector.calculate_numeric_gap(m, reference_graph=REFERENCE_GRAPH))
            for m in METRICS
        }


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, allow_nan=False) + "\n", encoding="utf-8")
