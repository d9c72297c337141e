"""How a quantisation recipe keeps a part of the model in higher precision (issue 59).

``gapscope-capture fix`` re-quantises the float program with some modules kept
out of quantisation, lowers it and runs it. Each recipe says it in its
quantiser's own terms, and writes the same configuration as a snippet a user
pastes into the export script:

- ``xnnpack-int8`` / ``xnnpack-int8-per-channel``: ExecuTorch's
  ``XNNPACKQuantizer`` with ``get_symmetric_quantization_config`` (PT2E); the
  modules kept in float through ``set_filter_function``, which every pattern's
  annotation consults (ExecuTorch 1.5.1's ``set_module_name(name, None)``
  asserts "quantization_config == None is not supported yet"); lowered with
  ``XnnpackPartitioner``, which runs the float ops in fp32 inside the delegate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch
from torch.export import ExportedProgram, export

# The ops XNNPACKQuantizer's patterns annotate (xnnpack_quantizer.SUPPORTED_PATTERNS):
# a module holding none of them has nothing to keep in float.
_XNNPACK_QUANTIZED = {
    "aten.conv1d",
    "aten.conv2d",
    "aten.conv_transpose2d",
    "aten.linear",
    "aten.add",
    "aten.mul",
    "aten.cat",
    "aten.adaptive_avg_pool2d",
}


@dataclass(frozen=True)
class XnnpackPT2E:
    """PT2E int8 for XNNPACK, symmetric, per tensor or per channel."""

    per_channel: bool = False

    @property
    def name(self) -> str:
        return "xnnpack-int8-per-channel" if self.per_channel else "xnnpack-int8"

    def quantizes(self, target: str) -> bool:
        """Whether a node of this ATen target (``aten.conv2d.default``) is one the quantiser annotates."""
        return target.rsplit(".", 1)[0] in _XNNPACK_QUANTIZED

    def quantizer(self, keep_float: Sequence[str]) -> Any:
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer,
            get_symmetric_quantization_config,
        )

        from torchao.quantization.pt2e.quantizer import get_module_name_filter

        quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=self.per_channel))
        if keep_float:
            kept = [get_module_name_filter(module) for module in keep_float]
            quantizer.set_filter_function(lambda node: not any(f(node) for f in kept))
        return quantizer

    def quantize(
        self, float_program: ExportedProgram, calibration: Sequence[Sequence[Any]], keep_float: Sequence[str]
    ) -> ExportedProgram:
        """prepare_pt2e, calibration on every batch, convert_pt2e, export again."""
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

        prepared = prepare_pt2e(float_program.module(), self.quantizer(keep_float))
        with torch.no_grad():
            for batch in calibration:
                prepared(*batch)
        return export(convert_pt2e(prepared), tuple(calibration[0]))

    def partitioners(self) -> list[Any]:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        return [XnnpackPartitioner()]

    def snippet(self, keep_float: Sequence[str], note: str) -> str:
        lines = [
            "from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (",
            "    XNNPACKQuantizer,",
            "    get_symmetric_quantization_config,",
            ")",
            "from torchao.quantization.pt2e.quantizer import get_module_name_filter",
            "",
            "quantizer = XNNPACKQuantizer().set_global(",
            f"    get_symmetric_quantization_config(is_per_channel={self.per_channel})",
            ")",
            f"# {note}",
        ]
        if keep_float:
            lines.append(f"keep_float = [get_module_name_filter(name) for name in {list(keep_float)!r}]")
            lines.append("quantizer.set_filter_function(lambda node: not any(f(node) for f in keep_float))")
        return "\n".join(lines) + "\n"


RECIPES = {r.name: r for r in (XnnpackPT2E(False), XnnpackPT2E(True))}
