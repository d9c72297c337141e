"""ExecuTorch's intermediate-output tap, captured for Gapscope (issue 58).

``executorch.devtools.intermediate_output_tap`` appends the values of the ops a
user selects (full, or reduced on the device to a few statistics) to the
program's outputs, so they reach the host through any delegate: the runtime
logs program outputs in the ETDump. Its ``TapSpec``s live only in Python.

- ``tap`` taps an exported program (before quantisation: ``prepare_pt2e`` then
  quantises around the taps, and the device's numbers are the quantised
  program's) and returns the specs, their ``output_index`` counted among the
  program's user outputs as the runtime returns them.
- ``save_tap_specs`` / ``load_tap_specs`` keep the specs beside the program.
- ``capture_taps`` writes the reference of a tapped program from its ETRecord:
  the capture of its graph (``capture_from_etrecord``), each tap's reference
  value (the program output at its index, reduced by the same reducer on this
  machine), and each tap's op with its debug handle, by which Gapscope nests
  the tap in the delegate that computes it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import Any, Iterator, Sequence

from executorch.devtools.intermediate_output_tap import (
    TapSpec,
    is_tap_node,
    tap_intermediate_outputs_,
)
import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import OutputKind
from torch.fx import Node
from torch.utils._pytree import tree_leaves

from gapscope_capture.capture_format import TapRecord
from gapscope_capture.backend_conventions import QNN_REFERENCE_GRAPH
from gapscope_capture.etrecord_capture import (
    EXPORTED_PROGRAM,
    FORWARD,
    CaptureError,
    CaptureResult,
    capture_etrecord_graph,
    inputs_or_representative,
    open_etrecord,
    resolve_reference_graph,
)

log = logging.getLogger(__name__)


def _user_outputs(program: ExportedProgram) -> list[Any]:
    """The program's user outputs, in the order the runtime returns them (buffer
    mutations, which the graph also returns, left out)."""
    output = next(n for n in program.graph.nodes if n.op == "output")
    values = output.args[0]
    specs = program.graph_signature.output_specs
    if len(specs) != len(values):
        raise CaptureError(
            f"the program's signature names {len(specs)} outputs, its graph returns {len(values)}"
        )
    return [value for spec, value in zip(specs, values) if spec.kind == OutputKind.USER_OUTPUT]


def _one_tensor_rules(rules: Any) -> Any:
    """The rules, each selector kept off nodes that return several tensors.

    ExecuTorch 1.5.1's tap op takes one tensor: a selector such as
    ``select_all_call_function()`` on a transformer also picks ``split`` (a list),
    and the tapped program then fails when it runs ("Expected a value of type
    'Tensor' for argument 'x' but instead found type 'list'"); a node returning
    nothing (a Hugging Face model's metadata assertions) fails lowering (the
    STATS reducer's ``None.detach``). Only nodes whose value is one tensor are
    tapped; a list's tensors are tapped through the ``getitem`` nodes that take
    it apart."""
    from executorch.devtools.intermediate_output_tap import STATS, select_all_call_function

    if rules is None:
        rules = [(select_all_call_function(), STATS)]
    elif isinstance(rules, tuple) and len(rules) == 2 and callable(rules[0]):
        rules = [rules]

    def one_tensor(node: Node) -> bool:
        return isinstance(node.meta.get("val"), torch.Tensor)

    return [(lambda node, keep=selector: keep(node) and one_tensor(node), reducer) for selector, reducer in rules]


def _give_taps_values(program: ExportedProgram) -> None:
    """ExecuTorch 1.5.1 inserts tap nodes without ``meta["val"]``: a program
    lowered without being exported again (an fp32 XNNPACK flow) then cannot save
    its ETRecord ("Failed serializing node tap_tensor ... KeyError: 'val'"). Each
    tap's value is computed on its source's fake tensor, in its fake mode."""
    for node in program.graph.nodes:
        if not _is_tap(node) or "val" in node.meta:
            continue
        source = node.args[0]
        value = source.meta.get("val") if isinstance(source, Node) else None
        mode = getattr(value, "fake_mode", None)
        if mode is None:
            continue  # nothing to compute it on: left as ExecuTorch made it
        with mode:
            node.meta["val"] = node.target(value, *node.args[1:], **node.kwargs)


def tap(program: ExportedProgram, rules: Any = None, *, max_taps: int | None = None) -> tuple[ExportedProgram, list[TapSpec]]:
    """``tap_intermediate_outputs_`` (in place), with its specs' ``output_index``
    counted among the user outputs (ExecuTorch 1.5.1 counts a buffer mutation
    output too, which the runtime does not return)."""
    program, specs = tap_intermediate_outputs_(program, _one_tensor_rules(rules), max_taps=max_taps)
    _give_taps_values(program)
    positions = [i for i, value in enumerate(_user_outputs(program)) if _is_tap(value)]
    if len(positions) != len(specs):
        raise CaptureError(f"{len(specs)} taps were made, but {len(positions)} user outputs are taps")
    fixed = []
    for spec, position in zip(specs, positions):
        if spec.output_index != position:
            log.info(
                "tap of %s: output_index %d is user output %d (buffer mutations are not returned)",
                spec.node_name,
                spec.output_index,
                position,
            )
            spec = dataclasses.replace(spec, output_index=position)
        fixed.append(spec)
    return program, fixed


def save_tap_specs(specs: Sequence[TapSpec], path: str | os.PathLike[str]) -> None:
    """The specs as JSON (``dataclasses.asdict`` of each), for ``capture_taps`` later."""
    Path(path).write_text(json.dumps([dataclasses.asdict(s) for s in specs], indent=1) + "\n")


def load_tap_specs(path: str | os.PathLike[str]) -> list[TapSpec]:
    """Specs saved by ``save_tap_specs`` (or ``dataclasses.asdict`` of ExecuTorch's own)."""
    try:
        raw = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise CaptureError(f"{path}: cannot read tap specs: {exc}") from exc
    if not isinstance(raw, list):
        raise CaptureError(f"{path}: tap specs are a JSON list of TapSpec objects")
    known = {f.name for f in dataclasses.fields(TapSpec)}
    specs = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise CaptureError(f"{path}: spec {i} is not an object")
        try:
            specs.append(TapSpec(**{k: (tuple(v) if k == "fields" else v) for k, v in item.items() if k in known}))
        except TypeError as exc:
            raise CaptureError(f"{path}: spec {i}: {exc}") from exc
    return specs


def _is_tap(node: Any) -> bool:
    """A tap node, in the ATen program (ExecuTorch's ``is_tap_node``) or in an edge
    program where a backend's passes made its target an edge op (QNN's
    ``edge_after_transform`` graph: ``<EdgeOpOverload: executorch_devtools.tap.Tensor>``)."""
    if not isinstance(node, Node) or node.op != "call_function":
        return False
    return is_tap_node(node) or "executorch_devtools.tap.Tensor" in str(node.target)


def _handle_of(node: Node) -> tuple[int, ...] | None:
    handle = node.meta.get("debug_handle")
    if isinstance(handle, int) and not isinstance(handle, bool) and handle > 0:
        return (handle,)
    if isinstance(handle, (list, tuple)) and handle and all(isinstance(h, int) and h > 0 for h in handle):
        return tuple(handle)
    return None


def tap_records(program: ExportedProgram, specs: Sequence[TapSpec]) -> list[TapRecord]:
    """Each spec tied to the tap node of ``program`` at its output index, and the
    tapped node's debug handle there. Raises when the specs are of another program."""
    outputs = _user_outputs(program)
    records = []
    for spec in specs:
        if spec.output_index >= len(outputs):
            raise CaptureError(
                f"tap of {spec.node_name}: output {spec.output_index}, but the program returns "
                f"{len(outputs)}: the specs are of another program"
            )
        node = outputs[spec.output_index]
        if not _is_tap(node):
            raise CaptureError(
                f"tap of {spec.node_name}: program output {spec.output_index} is "
                f"'{getattr(node, 'name', node)}', not a tap: the specs are of another program"
            )
        reducer = node.args[1] if len(node.args) > 1 else None
        if reducer != spec.reducer_name:
            raise CaptureError(
                f"tap of {spec.node_name}: program output {spec.output_index} is reduced by "
                f"{reducer!r}, the spec says {spec.reducer_name!r}: the specs are of another program"
            )
        source = node.args[0]
        records.append(
            TapRecord(
                output_index=spec.output_index,
                node_name=spec.node_name,
                op_target=spec.op_target,
                reducer=spec.reducer_name,
                fields=tuple(spec.fields),
                stack_trace=spec.stack_trace,
                module_path=spec.module_path,
                module_class=spec.module_class,
                debug_handle=_handle_of(source) if isinstance(source, Node) else None,
            )
        )
    return records


def capture_taps(
    etrecord_path: str | os.PathLike[str],
    specs: Sequence[TapSpec],
    inputs: Sequence[Any] | None = None,
    reference_graph: str | None = None,
    method: str = FORWARD,
) -> CaptureResult:
    """The capture of a tapped program's ETRecord, with its taps.

    The tap ops themselves are not records (the device logs no intermediate
    output for them: its values are program outputs). Each tap's reference is
    the program output at its index, which the capture's ``reference_outputs``
    hold, reduced on this machine by the reducer the device ran.
    """
    result, program = capture_etrecord_graph(etrecord_path, inputs, reference_graph, method)
    taps = tap_records(program, specs)
    if reference_graph is None and result.reference_graph == QNN_REFERENCE_GRAPH:
        result.reference_outputs = _quantized_outputs(etrecord_path, inputs, method, len(result.reference_outputs))
    tap_names = {n.name for n in program.graph.nodes if _is_tap(n)}
    result.records = [r for r in result.records if not set(r.ops) <= tap_names]
    if result.reference_outputs is None or len(result.reference_outputs) <= max(
        (t.output_index for t in taps), default=-1
    ):
        raise CaptureError("the capture holds fewer reference outputs than the taps name")
    result.taps = taps
    return result


def iter_tap_steps(
    etrecord_path: str | os.PathLike[str],
    specs: Sequence[TapSpec],
    steps: Sequence[Sequence[Any]],
    reference_graph: str | None = None,
    method: str = FORWARD,
) -> Iterator[CaptureResult]:
    """``capture_taps`` for each execution of a decode loop: the step captures of
    ``iter_steps_from_etrecord`` (one module whose buffers carry the state from
    step to step), each with the taps. ``--all-runs`` and the steps view then
    compare each execution's taps with its own step. Yields one step at a time."""
    from gapscope_capture.steps import iter_steps_from_etrecord

    etrecord, _, _ = open_etrecord(Path(etrecord_path), hash_file=False)
    program, _ = resolve_reference_graph(etrecord, reference_graph, method)
    taps = tap_records(program, specs)
    tap_names = {n.name for n in program.graph.nodes if _is_tap(n)}
    del program, etrecord
    for result in iter_steps_from_etrecord(etrecord_path, steps, reference_graph, method):
        result.records = [r for r in result.records if not set(r.ops) <= tap_names]
        if result.reference_outputs is None or len(result.reference_outputs) <= max(
            (t.output_index for t in taps), default=-1
        ):
            raise CaptureError(f"step {result.step}: the capture holds fewer reference outputs than the taps name")
        result.taps = taps
        yield result


def save_outputs(outputs_per_execution: Sequence[Sequence[Any]], path: str | os.PathLike[str]) -> None:
    """The method's outputs as the device returned them, one list per execution,
    in the file Gapscope reads beside an ETDump without a debug buffer
    (``outputs/<execution>/<index>``; docs/your-model.md). Tensors only."""
    from safetensors.torch import save_file

    tensors = {}
    for execution, outputs in enumerate(outputs_per_execution):
        for index, value in enumerate(outputs):
            if not isinstance(value, torch.Tensor):
                raise CaptureError(f"execution {execution}, output {index}: not a tensor ({type(value).__name__})")
            tensors[f"outputs/{execution}/{index}"] = value.detach().contiguous().cpu()
    save_file(tensors, str(path))


def _quantized_outputs(etrecord_path: Any, inputs: Sequence[Any] | None, method: str, count: int) -> list[Any]:
    """A QNN program's outputs as its quantised simulation computes them.

    The rows of a QNN capture come from QNN's transformed graph (its handles are
    the delegate's), which runs with its quantize/dequantize pairs folded into
    QNN's attributes: a float computation. The device's taps are the quantised
    program's values, so their reference (and the program outputs') is the
    ETRecord's ATen program, the program ``tap_compare`` compares with; the tap
    handles stay the transformed graph's, so each tap nests in its delegate.
    """
    etrecord, _, _ = open_etrecord(Path(etrecord_path), hash_file=False)
    program, _ = resolve_reference_graph(etrecord, EXPORTED_PROGRAM, method)
    with torch.no_grad():
        outputs = tree_leaves(program.module()(*inputs_or_representative(inputs, etrecord, etrecord_path, method)))
    if len(outputs) != count:
        raise CaptureError(
            f"{etrecord_path}: the ATen program returns {len(outputs)} outputs, QNN's graph {count}: "
            "the taps cannot be referred to the quantised program"
        )
    log.info("%s: QNN taps and program outputs refer to the ETRecord's ATen program (the quantised simulation)",
             etrecord_path)
    return [v.detach() if isinstance(v, torch.Tensor) else v for v in outputs]


def capture_float_taps(
    float_program: ExportedProgram,
    quantized: CaptureResult,
    inputs: Sequence[Any] | None = None,
) -> CaptureResult:
    """The float model's reference for a tapped, PT2E-quantised program.

    ``float_program`` is the program tapped (``tap``) before ``prepare_pt2e``:
    its outputs hold the same taps at the same indices, reduced the same way,
    so each tap's float value is its output there. ``quantized`` is the
    quantised program's ``capture_taps``. The records are
    ``capture_float_reference``'s (the float model under the quantised keys);
    the taps are the quantised capture's, checked against ``float_program``.
    """
    from gapscope_capture.float_reference import capture_float_reference

    if not quantized.taps:
        raise CaptureError("the quantised capture has no taps (capture it with capture_taps)")
    specs = [
        TapSpec(
            node_name=t.node_name,
            op_target=t.op_target,
            output_index=t.output_index,
            reducer_name=t.reducer,
            fields=tuple(t.fields),
        )
        for t in quantized.taps
    ]
    tap_records(float_program, specs)  # raises when the float program has other taps
    result = capture_float_reference(float_program, quantized, inputs)
    result.taps = list(quantized.taps)
    if result.reference_outputs is None or len(result.reference_outputs) <= max(t.output_index for t in result.taps):
        raise CaptureError("the float program returns fewer outputs than the taps name")
    return result
