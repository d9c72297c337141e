"""A tapped int8 CNN on XNNPACK (issue 58): ExecuTorch's intermediate-output tap.

The recipe a user follows (docs/your-model.md, "Inside a delegate"): the float
program is tapped before quantisation (``gapscope_capture.taps.tap``), so that
PT2E quantises around the taps and the device's numbers are the quantised
program's; it is lowered to XNNPACK, the taps are stripped (``strip_taps_``),
and it runs once with ETDump. The taps' values are program outputs, which the
runtime logs through any delegate. Two captures are written:

- ``capture.gscap.safetensors``: the ETRecord's graph (the quantised
  simulation) with its taps (``capture_taps``);
- ``float.gscap.safetensors``: the float model under the same keys and taps
  (``capture_float_taps``): the gap each op inside the delegate adds against
  float.

Variants: ``full`` taps the convolutions and linears whole (FULL_TENSOR) and
every other op with statistics (STATS); ``stats`` taps the same ops with STATS
only, the same program otherwise, so the statistics' bound can be held against
the full tensors' truth. ``relu`` taps the ReLUs only, and ``production`` is the
program untapped (no capture: the build shipped), for the debug-build check
(``gapscope-cli compare DIR --production``): tapping a convolution gives it a
second user, so PT2E no longer fuses it with its ReLU and the tapped program
requantises its output (``full`` and ``stats`` describe another program than
``production``); tapping the ReLUs changes nothing (``relu`` is ``production``
plus outputs).

``decoder`` is the zoo's decoder block (RMSNorm, RoPE, causal attention,
SwiGLU) the same way: PT2E int8 on XNNPACK, its linears and matmuls tapped whole
and every other op with statistics.

``decode`` is the LLM case: the zoo's KV-cache decoder (zoo_runs.KvDecoder) on
XNNPACK with STATS taps over its linears, run for a prefill and 16 decode steps
in one ETDump, a step capture with the taps for each (``iter_tap_steps``), and
ExecuTorch's table per step (``executorch_taps_steps.json``). ``decode-saved``
beside it is the same loop as a long decode is kept: run again with an ETDump
of timings only (no debug buffer, so no debug event), and the method's outputs
saved per execution (``save_outputs``:
``outputs.safetensors``), from which the taps are read. ExecuTorch's own tables (``compare_aot_runtime_dataframe``
on the runtime's outputs and the quantised program's, and the float program's)
are written beside it as ``executorch_taps.json`` and ``executorch_taps_float.json``.
"""

from __future__ import annotations

import json
import logging
import math
import time
from pathlib import Path
from typing import Any

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from executorch.devtools.intermediate_output_tap import (
    FULL_TENSOR,
    STATS,
    compare_aot_runtime_dataframe,
    select_all_call_function,
    select_by_op_type,
    strip_taps_,
)
from executorch.exir import to_edge_transform_and_lower
from torch.export import export
from torch.utils._pytree import tree_leaves
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from gapscope_capture.host_run import save_and_run
from gapscope_capture.taps import capture_float_taps, capture_taps, save_tap_specs, tap

log = logging.getLogger(__name__)

SEED = 0
VARIANTS = ("production", "full", "stats", "relu", "decoder", "decode")  # production first: the others hold themselves against it
DEBUG_BUFFER_SIZE = 256 << 10
WHOLE = ("aten.conv2d.default", "aten.linear.default")


class TapNet(torch.nn.Module):
    """Two conv-ReLU stages, a linear, GELU and a classifier: small, several ops in one delegate."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc1 = torch.nn.Linear(8 * 8 * 8, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv1(x))
        y = torch.relu(self.conv2(y))
        y = torch.nn.functional.gelu(self.fc1(y.flatten(1)))
        return self.fc2(y)

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(1, 3, 8, 8),)


def _rules(variant: str) -> Any:
    if variant == "production":
        return None
    if variant == "decoder":
        return [
            (select_by_op_type("aten.linear.default", "aten.matmul.default"), FULL_TENSOR),
            (select_all_call_function(), STATS),
        ]
    if variant == "relu":
        return [(select_by_op_type("aten.relu.default"), FULL_TENSOR)]
    if variant == "full":
        return [(select_by_op_type(*WHOLE), FULL_TENSOR), (select_all_call_function(), STATS)]
    return [(select_all_call_function(), STATS)]


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


def write_tapped_decoder(directory: Path, executions: int) -> tuple[list[Any], list[tuple[torch.Tensor, ...]]]:
    """The KV-cache decoder (zoo_runs.KvDecoder) for ``executions`` tokens, STATS taps
    over its linears, lowered to XNNPACK and saved into ``directory`` (taps.json,
    etrecord.bin, model.pte). Returns the specs and each execution's inputs."""
    from gapscope_capture.host_run import save_program
    from gapscope_zoo.zoo_runs import KvDecoder

    directory.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    model = KvDecoder(positions=executions).eval()
    steps = [(torch.randn(1, 1, 16), torch.tensor([t])) for t in range(executions)]
    with torch.no_grad():  # as zoo_runs exports it: the cache's in-place writes need no autograd
        program, specs = tap(export(model, steps[0]), [(select_by_op_type("aten.linear.default"), STATS)])
    save_tap_specs(specs, directory / "taps.json")
    edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()], generate_etrecord=True)
    strip_taps_(edge)
    save_program(directory, edge.to_executorch(), steps[0])
    return specs, steps


def write_decode(directory: Path, decode_steps: int = 16) -> Path:
    """The decode loop with STATS taps over its linears; ``decode-saved`` beside it."""
    import shutil

    from executorch.extension.pybindings.portable_lib import _load_for_executorch

    from gapscope_capture.capture_format import step_capture_name
    from gapscope_capture.taps import iter_tap_steps, save_outputs

    started = time.monotonic()
    specs, steps = write_tapped_decoder(directory, decode_steps + 1)
    runtime = _load_for_executorch(str(directory / "model.pte"), enable_etdump=True, debug_buffer_size=1 << 20)
    device = [[t.clone() for t in runtime.forward(inputs)] for inputs in steps]
    runtime.write_etdump_result_to_file(str(directory / "run.etdp"), str(directory / "run.debug.bin"))
    tables = []
    for step, result in enumerate(iter_tap_steps(directory / "etrecord.bin", specs, steps)):
        result.write(directory / step_capture_name(result.method, result.step))
        frame = compare_aot_runtime_dataframe(specs, list(result.reference_outputs), device[step])
        tables.append([{k: _json_value(v) for k, v in row.items()} for row in frame.to_dict(orient="records")])
    (directory / "executorch_taps_steps.json").write_text(json.dumps(tables) + "\n")

    # As a long decode is kept on a device: run again with ETDump but no debug
    # buffer (timings only, no debug event at all), the outputs saved per execution.
    saved = directory.parent / "decode-saved"
    shutil.rmtree(saved, ignore_errors=True)
    saved.mkdir()
    for f in directory.iterdir():
        if f.name not in ("run.debug.bin", "run.etdp"):
            shutil.copy(f, saved / f.name)
    timed = _load_for_executorch(str(saved / "model.pte"), enable_etdump=True, debug_buffer_size=0)
    kept = [[t.clone() for t in timed.forward(inputs)] for inputs in steps]
    timed.write_etdump_result_to_file(str(saved / "run.etdp"), str(saved / "unused.debug.bin"))
    (saved / "unused.debug.bin").unlink(missing_ok=True)
    save_outputs(kept, saved / "outputs.safetensors")
    log.info("taps/decode written in %.1f s", time.monotonic() - started)
    return directory


def write_session(directory: Path, variant: str = "full") -> Path:
    """Tap, quantise, lower, run and capture TapNet in ``directory``."""
    if variant == "decode":
        return write_decode(directory)
    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    if variant == "decoder":
        from gapscope_zoo.zoo import DecoderBlock

        model, make = DecoderBlock().eval(), DecoderBlock.example
    else:
        model, make = TapNet().eval(), TapNet.example
    inputs = make()
    calibration = [make() for _ in range(3)]

    rules = _rules(variant)
    float_program, specs = tap(export(model, inputs), rules) if rules else (export(model, inputs), [])
    if specs:
        save_tap_specs(specs, directory / "taps.json")
    prepared = prepare_pt2e(
        float_program.module(), XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    )
    with torch.no_grad():
        for batch in calibration:
            prepared(*batch)
    quantized = export(convert_pt2e(prepared), inputs)

    edge = to_edge_transform_and_lower(quantized, partitioner=[XnnpackPartitioner()], generate_etrecord=True)
    if specs:
        strip_taps_(edge)
    # The decoder block logs some 200 intermediate outputs: a larger buffer.
    buffer = DEBUG_BUFFER_SIZE * (16 if variant == "decoder" else 1)
    device = save_and_run(directory, edge.to_executorch(), inputs, buffer)
    # The truth the debug-build check is held to, by torch on the runtime's own
    # outputs: do the tapped program's outputs (less its taps) equal production's?
    if not specs:
        torch.save([t.clone() for t in device], directory / "device_outputs.pt")
        log.info("taps/%s (untapped) written in %.1f s", variant, time.monotonic() - started)
        return directory

    shipped = directory.parent / "production" / "device_outputs.pt"
    if shipped.exists() and variant != "decoder":  # production is TapNet's
        theirs = torch.load(shipped)
        taps = {spec.output_index for spec in specs}
        ours = [t for i, t in enumerate(device) if i not in taps]
        truth = {
            "outputs_equal": len(ours) == len(theirs) and all(torch.equal(a, b) for a, b in zip(ours, theirs)),
            "max_abs": max(float((a - b).abs().max()) for a, b in zip(ours, theirs)),
        }
        (directory / "production_truth.json").write_text(json.dumps(truth) + "\n")
    capture = capture_taps(directory / "etrecord.bin", specs)
    capture.write(directory / "capture.gscap.safetensors")
    capture_float_taps(float_program, capture).write(directory / "float.gscap.safetensors")

    # ExecuTorch's own tables: the runtime's outputs against the quantised
    # program's (tap_compare's), and against the tapped float program's.
    for name, program in (("executorch_taps.json", quantized), ("executorch_taps_float.json", float_program)):
        aot = tree_leaves(program.module()(*inputs))
        frame = compare_aot_runtime_dataframe(specs, aot, device)
        rows = [{k: _json_value(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
        (directory / name).write_text(json.dumps(rows, indent=1) + "\n")
    log.info("taps/%s written in %.1f s", variant, time.monotonic() - started)
    return directory
