"""A small, deterministic demo session: a model lowered to XNNPACK, run, captured and compared.

For each variant (``fp32`` and PT2E ``int8``) the demo writes what Gapscope
needs to reproduce ExecuTorch's numeric-gap analysis: the program, its ETRecord,
a runtime ETDump with its debug buffer, the AOT capture, and ExecuTorch's own
``Inspector.calculate_numeric_gap`` results to check Gapscope against.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from executorch.devtools import Inspector
from executorch.exir import ExecutorchProgramManager, to_edge_transform_and_lower
from executorch.extension.pybindings.portable_lib import _load_for_executorch
from torch.export import ExportedProgram, export
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from gapscope_capture.capture import capture_float_reference, capture_from_etrecord, capture_from_program
from gapscope_capture.capture_format import json_float, producer_versions

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger(__name__)

SEED = 0
INPUT_SHAPE = (1, 3, 4, 4)
VARIANTS = ("fp32", "int8")
METRICS = ("MSE", "L1", "SNR")
CALIBRATION_BATCHES = 4
# ETDumpGen aborts the whole process when intermediate outputs overflow the debug buffer. This
# model logs about 1.5 KiB; the buffer is written out whole, so it is generous but not large.
DEBUG_BUFFER_SIZE = 64 * 1024

PTE = "model.pte"
ETRECORD = "etrecord.bin"
ETDUMP = "run.etdp"
DEBUG_BUFFER = "run.debug.bin"
CAPTURE = "capture.gscap.safetensors"
CAPTURE_FLOAT = "capture_float.gscap.safetensors"  # int8 only
MANIFEST = "manifest.json"


class TinyModel(torch.nn.Module):
    """conv2d → relu → layer_norm → linear → softmax → topk (a two-output op)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.norm = torch.nn.LayerNorm(16)
        self.fc = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.conv(x))  # (1, 4, 4, 4)
        y = self.norm(y.reshape(1, 4, 16))
        probabilities = torch.softmax(self.fc(y), dim=-1)  # (1, 4, 8)
        values, indices = torch.topk(probabilities, 3, dim=-1)
        return values, indices


def run_demo(outdir: str | Path, seed: int = SEED) -> list[Path]:
    """Write every variant into ``outdir/<variant>/``; returns the variant directories."""
    return [write_variant(Path(outdir) / variant, variant, seed) for variant in VARIANTS]


def write_variant(directory: Path, variant: str, seed: int = SEED) -> Path:
    """Lower, run, capture and compare one variant into ``directory``.

    ``int8`` also gets ``capture_float.gscap.safetensors``: the float model,
    exported before quantisation, captured under the int8 capture's keys
    (``capture_float_reference``), against which the quantisation error shows.
    """
    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    model, inputs = seeded_model_and_inputs(seed)
    # int8: the float program, exported before quantisation, is the float capture's reference.
    float_program = export(model, inputs) if variant == "int8" else None
    program = lower(model, inputs, variant, seed, exported=float_program)

    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(directory / ETRECORD))
    (directory / PTE).write_bytes(program.buffer)

    runtime = _load_for_executorch(
        str(directory / PTE), enable_etdump=True, debug_buffer_size=DEBUG_BUFFER_SIZE
    )
    runtime.forward(inputs)
    runtime.write_etdump_result_to_file(str(directory / ETDUMP), str(directory / DEBUG_BUFFER))

    capture = capture_from_etrecord(directory / ETRECORD)
    # The in-memory program still has node metadata a saved ETRecord drops.
    capture.fill_quantization(capture_from_program(program))
    capture.write(directory / CAPTURE)
    files = [PTE, ETRECORD, ETDUMP, DEBUG_BUFFER, CAPTURE]
    if float_program is not None:
        capture_float_reference(float_program, capture).write(directory / CAPTURE_FLOAT)
        files.append(CAPTURE_FLOAT)

    inspector = Inspector(
        etdump_path=str(directory / ETDUMP),
        etrecord=str(directory / ETRECORD),
        debug_buffer_path=str(directory / DEBUG_BUFFER),
    )
    gap_files = [f"executorch_gap_{metric.lower()}.json" for metric in METRICS]
    for metric, name in zip(METRICS, gap_files):
        _write_json(directory / name, gap_rows(inspector.calculate_numeric_gap(metric)))

    _write_json(
        directory / MANIFEST,
        {
            "variant": variant,
            "seed": seed,
            "input_shapes": [list(tensor.shape) for tensor in inputs],
            "debug_buffer_size": DEBUG_BUFFER_SIZE,
            "reference_graph": capture.reference_graph,
            "versions": producer_versions(),
            "files": _file_entries(directory, [*files, *gap_files]),
        },
    )
    log.info("%s: written to %s in %.1f s", variant, directory, time.monotonic() - started)
    return directory


def gap_rows(frame: "pd.DataFrame") -> list[dict[str, Any]]:
    """The comparable columns of ``Inspector.calculate_numeric_gap``'s result as JSON rows."""
    return [
        {
            "aot_debug_handle": [int(h) for h in row.aot_debug_handle],
            "aot_ops": [str(op) for op in row.aot_ops],
            "runtime_ops": [str(op) for op in row.runtime_ops],
            "runtime_debug_handle": [int(h) for h in row.runtime_debug_handle],
            "gap": [json_float(value) for value in row.gap],
        }
        for row in frame.itertuples(index=False)
    ]


def seeded_model_and_inputs(seed: int = SEED) -> tuple[TinyModel, tuple[torch.Tensor]]:
    """The demo model with seeded weights and its seeded example input."""
    torch.manual_seed(seed)
    model = TinyModel().eval()
    generator = torch.Generator().manual_seed(seed)
    return model, (torch.randn(INPUT_SHAPE, generator=generator),)


def lower(
    model: TinyModel,
    inputs: tuple[torch.Tensor],
    variant: str,
    seed: int = SEED,
    *,
    exported: ExportedProgram | None = None,
) -> ExecutorchProgramManager:
    """Lower ``model`` to XNNPACK as the ``fp32`` or ``int8`` variant, with an ETRecord.

    ``exported`` is ``export(model, inputs)`` if the caller has it (it is
    exported here otherwise); ``int8`` quantises its ``.module()``, which
    leaves ``exported`` itself unchanged, so it stays the float reference.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown demo variant {variant!r}; expected one of {VARIANTS}")
    if exported is None:
        exported = export(model, inputs)
    if variant == "int8":
        exported = export(_quantize_int8(exported, seed), inputs)
    edge = to_edge_transform_and_lower(
        exported, partitioner=[XnnpackPartitioner()], generate_etrecord=True
    )
    return edge.to_executorch()


def _quantize_int8(exported: ExportedProgram, seed: int) -> torch.nn.Module:
    """PT2E static int8 quantisation for XNNPACK, calibrated on seeded random inputs."""
    prepared = prepare_pt2e(
        exported.module(),
        XNNPACKQuantizer().set_global(get_symmetric_quantization_config()),
    )
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for _ in range(CALIBRATION_BATCHES):
            prepared(torch.randn(INPUT_SHAPE, generator=generator))
    return convert_pt2e(prepared)


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, allow_nan=False) + "\n", encoding="utf-8")


def _file_entries(directory: Path, names: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "bytes": (directory / name).stat().st_size,
            "sha256": hashlib.sha256((directory / name).read_bytes()).hexdigest(),
        }
        for name in names
    ]
