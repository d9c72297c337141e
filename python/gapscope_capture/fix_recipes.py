"""How a quantisation recipe keeps a part of the model in higher precision (issue 59).

``gapscope-capture fix`` re-quantises the float program with some parts kept in
higher precision, lowers it and runs it. A part is a module (by its qualified
name, ``culprit`` or ``blocks.3.attn``) or an op the model calls outside any
submodule (by its node name in the exported float program, ``softmax``: the
same names an export of the same model gives). Each recipe says it in its
quantiser's own terms, and writes the same configuration as a snippet a user
pastes into the export script:

- ``xnnpack-int8`` / ``xnnpack-int8-per-channel``: ExecuTorch's
  ``XNNPACKQuantizer`` with ``get_symmetric_quantization_config`` (PT2E); the
  parts kept in float through ``set_filter_function``, which every pattern's
  annotation consults (ExecuTorch 1.5.1's ``set_module_name(name, None)``
  asserts "quantization_config == None is not supported yet"); lowered with
  ``XnnpackPartitioner``, which runs the float ops in fp32 inside the delegate.
- ``qnn-8a8w``: Qualcomm's ``QnnQuantizer`` (``make_quantizer``, 8-bit
  activations and weights); the parts kept at 16-bit activations (16a8w)
  through ``set_submodule_qconfig_list``; lowered with
  ``to_edge_transform_and_lower_to_qnn`` for the HTP (``--soc``, default
  SM8650), run on the HTP simulator of ``shared/qnn-x86`` on this machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch
from torch.export import ExportedProgram, export

OP_PREFIX = "op:"  # a part that is an op outside any submodule, by node name

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
# Ops that compute nothing a quantiser annotates (views, shapes, getitem).
_NOT_COMPUTING = ("aten.view", "aten.reshape", "aten.transpose", "aten.permute", "aten.flatten", "getitem",
                  "aten.unsqueeze", "aten.squeeze", "aten.expand", "aten.contiguous", "aten.sym_size")


def part_filter(parts: Sequence[str]) -> Callable[[torch.fx.Node], bool]:
    """A node filter: True for the nodes of the given parts (modules and ``op:`` nodes)."""
    from torchao.quantization.pt2e.quantizer import get_module_name_filter

    modules = [get_module_name_filter(p) for p in parts if not p.startswith(OP_PREFIX)]
    ops = {p[len(OP_PREFIX) :] for p in parts if p.startswith(OP_PREFIX)}
    return lambda node: node.name in ops or any(f(node) for f in modules)


def _snippet_filter(parts: Sequence[str]) -> list[str]:
    """Lines defining ``kept(node)`` for the snippet, as part_filter does."""
    modules = [p for p in parts if not p.startswith(OP_PREFIX)]
    ops = sorted(p[len(OP_PREFIX) :] for p in parts if p.startswith(OP_PREFIX))
    lines = ["from torchao.quantization.pt2e.quantizer import get_module_name_filter", ""]
    lines.append(f"modules = [get_module_name_filter(name) for name in {modules!r}]")
    lines.append(f"ops = {set(ops)!r}  # node names of the exported float program" if ops else "ops = set()")
    lines.append("kept = lambda node: node.name in ops or any(f(node) for f in modules)")
    return lines


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

    def quantizer(self, keep: Sequence[str]) -> Any:
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer,
            get_symmetric_quantization_config,
        )

        quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=self.per_channel))
        if keep:
            kept = part_filter(keep)
            quantizer.set_filter_function(lambda node: not kept(node))
        return quantizer

    def quantize(
        self, float_program: ExportedProgram, calibration: Sequence[Sequence[Any]], keep: Sequence[str]
    ) -> ExportedProgram:
        """prepare_pt2e, calibration on every batch, convert_pt2e, export again."""
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

        prepared = prepare_pt2e(float_program.module(), self.quantizer(keep))
        with torch.no_grad():
            for batch in calibration:
                prepared(*batch)
        return export(convert_pt2e(prepared), tuple(calibration[0]))

    def lower(self, quantized: ExportedProgram, inputs: tuple[Any, ...], etrecord: bool) -> Any:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        from executorch.exir import to_edge_transform_and_lower

        return to_edge_transform_and_lower(quantized, partitioner=[XnnpackPartitioner()], generate_etrecord=etrecord)

    def to_executorch(self, edge: Any) -> Any:
        return edge.to_executorch()

    def snippet(self, keep: Sequence[str], note: str) -> str:
        lines = [
            "from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (",
            "    XNNPACKQuantizer,",
            "    get_symmetric_quantization_config,",
            ")",
        ]
        if keep:
            lines += _snippet_filter(keep)
        lines += [
            "",
            "quantizer = XNNPACKQuantizer().set_global(",
            f"    get_symmetric_quantization_config(is_per_channel={self.per_channel})",
            ")",
            f"# {note}",
        ]
        if keep:
            lines.append("quantizer.set_filter_function(lambda node: not kept(node))  # kept in float")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class QnnPT2E:
    """Qualcomm's QnnQuantizer at 8a8w; the parts kept at 16-bit activations (16a8w)."""

    soc: str = "SM8650"

    @property
    def name(self) -> str:
        return "qnn-8a8w"

    def quantizes(self, target: str) -> bool:
        # QNN quantises every op it takes; views and shapes compute nothing to keep.
        return target.startswith("aten.") and not target.startswith(_NOT_COMPUTING)

    def quantizer(self, keep: Sequence[str]) -> Any:
        from executorch.backends.qualcomm.export_utils import make_quantizer
        from executorch.backends.qualcomm.quantizer.quantizer import ModuleQConfig, QuantDtype

        higher = [(part_filter(keep), ModuleQConfig(QuantDtype.use_16a8w, is_conv_per_channel=True))] if keep else []
        return make_quantizer(quant_dtype=QuantDtype.use_8a8w, soc_model=self.soc, submodule_qconfig_list=higher)

    def quantize(self, float_program: ExportedProgram, calibration: Sequence[Sequence[Any]], keep: Sequence[str]) -> Any:
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

        prepared = prepare_pt2e(float_program.module(), self.quantizer(keep))
        with torch.no_grad():
            for batch in calibration:
                prepared(*batch)
        return convert_pt2e(prepared)

    def lower(self, quantized: Any, inputs: tuple[Any, ...], etrecord: bool) -> Any:
        from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
        from executorch.backends.qualcomm.utils.utils import (
            generate_htp_compiler_spec,
            generate_qnn_executorch_compiler_spec,
            to_edge_transform_and_lower_to_qnn,
        )

        compile_spec = generate_qnn_executorch_compiler_spec(
            soc_model=getattr(QcomChipset, self.soc),
            backend_options=generate_htp_compiler_spec(use_fp16=False),
            dump_intermediate_outputs=etrecord,
        )
        return to_edge_transform_and_lower_to_qnn(quantized, inputs, compile_spec, generate_etrecord=etrecord)

    def to_executorch(self, edge: Any) -> Any:
        from executorch.backends.qualcomm.utils.utils import get_qnn_context_binary_alignment
        from executorch.exir.capture._config import ExecutorchBackendConfig
        from executorch.exir.passes.memory_planning_pass import MemoryPlanningPass

        return edge.to_executorch(
            config=ExecutorchBackendConfig(
                memory_planning_pass=MemoryPlanningPass(alloc_graph_input=True, alloc_graph_output=True),
                segment_alignment=get_qnn_context_binary_alignment(),
            )
        )

    def snippet(self, keep: Sequence[str], note: str) -> str:
        lines = [
            "from executorch.backends.qualcomm.export_utils import make_quantizer",
            "from executorch.backends.qualcomm.quantizer.quantizer import ModuleQConfig, QuantDtype",
        ]
        if keep:
            lines += _snippet_filter(keep)
        lines += ["", f"# {note}"]
        higher = "[(kept, ModuleQConfig(QuantDtype.use_16a8w, is_conv_per_channel=True))]" if keep else "[]"
        lines += [
            "quantizer = make_quantizer(",
            f"    quant_dtype=QuantDtype.use_8a8w, soc_model={self.soc!r}, submodule_qconfig_list={higher}",
            ")",
        ]
        return "\n".join(lines) + "\n"


RECIPES = {r.name: r for r in (XnnpackPT2E(False), XnnpackPT2E(True), QnnPT2E())}
