"""A conv + BatchNorm CNN quantised with PT2E, one row per op (issue 30).

PT2E's ``prepare_pt2e`` folds every BatchNorm that follows a conv (or a linear
on a 2-D input) into it and deletes the BatchNorm, so the quantised ``conv2d``
outputs conv + BatchNorm. A float reference that took the float graph's
``conv2d`` (before its BatchNorm) would read tens of dB too low on every conv and
right again on the activation after it: a sawtooth, and a first divergence that
is an artefact. This session is the ground truth for that.

``ConvBnNet`` is torchvision-style (``mobilenet_v2``'s inverted residuals, one
with its skip ``add``, and a Linear + BatchNorm1d head, a linear fold), with
random weights and BatchNorm statistics re-estimated on random batches so that
every BatchNorm changes its input as a trained one does. It has no BatchNorm
that PT2E keeps: one would make ``convert_pt2e`` trace its QAT fold patterns,
30 s per conversion (the renumbering such a BatchNorm causes is tested in
``tests/test_bn_fold.py``).

The session (``write_session``) is the mobilenet_v2 path a user takes: PT2E
int8 lowered to XNNPACK, which makes the whole network one delegate that logs
only its output, so one row. Its host twin (``host-twin/``, ``host_twin``) is
the same program without the delegate, on ExecuTorch's portable and quantised
kernels, one row per op, with the float reference and ``prefused/``: the float
reference of the same model with every BatchNorm folded before export
(``fuse_conv_bn_eval``), which needs no fold handling and whose int8 program is
byte for byte the twin's, so its rows are what the float reference's must be.
Each session has ExecuTorch's own tables.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import torch
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from executorch.exir import to_edge_transform_and_lower
from torch import nn
from torch.export import ExportedProgram, export
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from gapscope_capture.capture import capture_from_etrecord, capture_from_program
from gapscope_capture.capture_format import CaptureRecord, read_capture
from gapscope_capture.float_reference import capture_float_reference
from gapscope_capture.stages import STAGES_FOLDER, write_stages

log = logging.getLogger(__name__)

INPUT_SHAPE = (1, 3, 32, 32)
VARIANT = "int8"  # XNNPACK
FP32 = "fp32"  # XNNPACK, float: the stage ladder's kernels step near zero (issue 59)
TWIN = "host-twin"  # the same program without the delegate (host_twin)
PREFUSED = "prefused"  # in TWIN: the float reference of the model folded before export


def _conv_bn(cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1, act: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = [
        nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
    ]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    """torchvision.models.mobilenetv2.InvertedResidual's structure."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        self.skip = stride == 1 and cin == cout
        self.conv = nn.Sequential(
            _conv_bn(cin, hidden, 1),
            _conv_bn(hidden, hidden, 3, stride, groups=hidden),
            _conv_bn(hidden, cout, 1, act=False),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.skip else self.conv(x)


class ConvBnNet(nn.Module):
    """A BatchNorm after every conv and after the first linear: PT2E folds each."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.stem = _conv_bn(3, 16, 3, 2)
        self.block1 = InvertedResidual(16, 16, 1, 2)
        self.block2 = InvertedResidual(16, 24, 2, 2)
        self.head = _conv_bn(24, 48, 1)
        self.fc = nn.Sequential(nn.Linear(48, 32), nn.BatchNorm1d(32))
        self.out = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.head(self.block2(self.block1(self.stem(x))))
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.out(torch.relu(self.fc(x)))


def build(model: nn.Module | None = None, seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor]]:
    """Seeded weights, BatchNorm affine parameters and statistics as a trained network has
    them (statistics re-estimated over random batches in train mode); eval mode; an input."""
    torch.manual_seed(seed)
    model = model or ConvBnNet()
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    model.train()
    generator = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        for _ in range(8):
            model(torch.randn(16, *INPUT_SHAPE[1:], generator=generator))
    model.eval()
    return model, (torch.randn(INPUT_SHAPE, generator=torch.Generator().manual_seed(seed + 200)),)


def prefuse(model: nn.Module) -> nn.Module:
    """Fold each Conv2d + BatchNorm2d and Linear + BatchNorm1d pair of an nn.Sequential (in place)."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

    for module in model.modules():
        if not isinstance(module, nn.Sequential):
            continue
        children = list(module._modules.items())
        for (first_name, first), (second_name, second) in zip(children, children[1:]):
            if isinstance(first, nn.Conv2d) and isinstance(second, nn.BatchNorm2d):
                module._modules[first_name] = fuse_conv_bn_eval(first, second)
            elif isinstance(first, nn.Linear) and isinstance(second, nn.BatchNorm1d):
                module._modules[first_name] = fuse_linear_bn_eval(first, second)
            else:
                continue
            module._modules[second_name] = nn.Identity()
    return model


def quantize(float_program: ExportedProgram, inputs: tuple[Any, ...]) -> ExportedProgram:
    """PT2E int8 (XNNPACKQuantizer, symmetric), calibrated on 4 seeded batches."""
    prepared = prepare_pt2e(
        float_program.module(), XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    )
    generator = torch.Generator().manual_seed(300)
    with torch.no_grad():
        for _ in range(4):
            prepared(*(torch.randn(t.shape, generator=generator) for t in inputs))
    return export(convert_pt2e(prepared), inputs)


def write_session(directory: Path) -> Path:
    """The int8 XNNPACK session (one delegate row), its host twin (one row per op) and the
    twin's prefused ground truth; returns ``directory``."""
    import executorch.kernels.quantized  # noqa: F401 - the quantize/dequantize kernels

    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    from gapscope_capture.host_twin import write_host_twin
    from gapscope_capture.host_run import lower_and_run
    from gapscope_zoo.zoo import DEBUG_BUFFER_SIZE, write_executorch_tables

    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    model, inputs = build()
    float_program = export(model, inputs)
    quantized = quantize(float_program, inputs)
    program = lower_and_run(directory, quantized, inputs, [XnnpackPartitioner()], DEBUG_BUFFER_SIZE)
    capture = capture_from_etrecord(directory / "etrecord.bin")
    capture.fill_quantization(capture_from_program(program))
    capture.write(directory / "capture.gscap.safetensors")
    capture_float_reference(float_program, capture).write(directory / "capture_float.gscap.safetensors")
    write_executorch_tables(directory)
    # Every reference of the stage ladder (issue 59), as gapscope-capture stages writes them.
    write_stages(directory / "etrecord.bin", directory / STAGES_FOLDER, inputs, float_program)

    twin = write_host_twin(directory / "etrecord.bin", directory / TWIN, inputs, float_program)
    write_executorch_tables(twin)

    # The same model with its BatchNorms folded before export: the same int8 program
    # (every op's quantised reference equal, handle by handle), whose float reference
    # needs no fold handling.
    fused_program = export(prefuse(build()[0]), inputs)
    fused = capture_from_program(
        to_edge_transform_and_lower(quantize(fused_program, inputs), generate_etrecord=True), inputs
    )
    if not _same_records(fused.records, read_capture(twin / "capture.gscap.safetensors").records):
        raise RuntimeError("folding BatchNorm before export gave another int8 program")
    (twin / PREFUSED).mkdir(exist_ok=True)
    capture_float_reference(fused_program, fused).write(twin / PREFUSED / "capture_float.gscap.safetensors")
    log.info("bn-cnn/%s written in %.1f s", VARIANT, time.monotonic() - started)
    return directory


def write_fp32_session(directory: Path) -> Path:
    """The same network in float on XNNPACK, with every reference of the stage ladder: its
    kernels' step is near zero, quantisation's absent (issue 59)."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    from gapscope_capture.host_run import lower_and_run
    from gapscope_zoo.zoo import DEBUG_BUFFER_SIZE

    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    model, inputs = build()
    float_program = export(model, inputs)
    lower_and_run(directory, float_program, inputs, [XnnpackPartitioner()], DEBUG_BUFFER_SIZE)
    capture_from_etrecord(directory / "etrecord.bin").write(directory / "capture.gscap.safetensors")
    write_stages(directory / "etrecord.bin", directory / STAGES_FOLDER, inputs, float_program)
    log.info("bn-cnn/%s written in %.1f s", FP32, time.monotonic() - started)
    return directory


def _same_records(a: list[CaptureRecord], b: list[CaptureRecord]) -> bool:
    return [(r.debug_handle, r.ops) for r in a] == [(r.debug_handle, r.ops) for r in b] and all(
        len(r.outputs) == len(t.outputs)
        and all(torch.equal(x, y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(r.outputs, t.outputs))
        for r, t in zip(a, b)
    )
