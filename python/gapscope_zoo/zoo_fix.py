"""An int8 CNN with one known culprit, for ``gapscope-capture fix`` (issue 59).

``CulpritNet`` is a conv net without BatchNorm whose block ``culprit`` makes a
wide activation range inside itself: its first conv multiplies one output
channel by ``WIDE`` (outlier channels, as trained networks grow them) and its
second divides that channel back. Per-tensor int8 then quantises the block's
inner activation with a step ``WIDE`` times too coarse for its other channels,
so the block loses most of the output's accuracy; every other layer is benign.
Kept in float (``XNNPACKQuantizer.set_module_name("culprit", None)``), the
block's inner range is never quantised and the output SNR rises past the
target. ``write_session`` writes the int8 XNNPACK session with its references
and the fix the command finds (``fix/``, its verified run in ``fix/fixed``).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import torch
from torch import nn
from torch.export import export

log = logging.getLogger(__name__)

VARIANT = "int8"
WIDE = 256.0
TARGET = "snr=35"
INPUT_SHAPE = (1, 3, 16, 16)


class Culprit(nn.Module):
    """conv → ReLU → conv: one channel WIDE times larger between the two."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.expand = nn.Conv2d(channels, channels, 3, padding=1)
        self.contract = nn.Conv2d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.contract(torch.relu(self.expand(x)))


class CulpritNet(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.culprit = Culprit(16)
        self.body = nn.Conv2d(16, 24, 3, stride=2, padding=1)
        self.head = nn.Linear(24, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        x = torch.relu(self.culprit(x))
        x = torch.relu(self.body(x))
        return self.head(nn.functional.adaptive_avg_pool2d(x, 1).flatten(1))


def build(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor]]:
    """Seeded weights with the culprit's outlier channel; eval mode; an input."""
    torch.manual_seed(seed)
    model = CulpritNet().eval()
    with torch.no_grad():
        model.culprit.expand.weight[0] *= WIDE
        model.culprit.expand.bias[0] *= WIDE
        model.culprit.contract.weight[:, 0] /= WIDE
    return model, (torch.randn(INPUT_SHAPE, generator=torch.Generator().manual_seed(seed + 1)),)


def calibration(seed: int = 0, batches: int = 4) -> list[tuple[torch.Tensor]]:
    generator = torch.Generator().manual_seed(seed + 300)
    return [(torch.randn(INPUT_SHAPE, generator=generator),) for _ in range(batches)]


def write_session(directory: Path) -> Path:
    """The int8 XNNPACK session of CulpritNet (capture, float reference), its float program
    (float.pt2) and inputs, and ``gapscope-capture fix``'s answer in ``fix/``."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    from gapscope_capture.capture import capture_from_etrecord
    from gapscope_capture.capture_format import write_inputs
    from gapscope_capture.fix import Target, search_fix
    from gapscope_capture.fix_output import write_fix
    from gapscope_capture.fix_recipes import RECIPES
    from gapscope_capture.float_reference import capture_float_reference
    from gapscope_capture.host_run import lower_and_run

    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    model, inputs = build()
    float_program = export(model, inputs)
    torch.export.save(float_program, str(directory / "float.pt2"))
    write_inputs(list(inputs), directory / "inputs.safetensors")
    recipe = RECIPES["xnnpack-int8"]
    batches = calibration()
    quantized = recipe.quantize(float_program, batches, [])
    lower_and_run(directory, quantized, inputs, [XnnpackPartitioner()], 4 << 20)
    capture = capture_from_etrecord(directory / "etrecord.bin")
    capture.write(directory / "capture.gscap.safetensors")
    capture_float_reference(float_program, capture).write(directory / "capture_float.gscap.safetensors")
    # Three parts in graph order (stem, the culprit block, its first conv): enough to
    # find it, each about 6 s of CI (the command's default tries every part).
    result = search_fix(
        float_program, inputs, recipe, Target.parse(TARGET), calibration=batches, budget_s=120, max_candidates=3
    )
    write_fix(result, directory / "fix", float_program)
    log.info("fix/%s written in %.1f s", VARIANT, time.monotonic() - started)
    return directory
