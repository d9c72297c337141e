"""The float model's reference, keyed like a quantised program's capture.

A PT2E-quantised program's own reference graph simulates the quantisation, so
the device matches it almost exactly; this captures what the float model
computes instead, under the quantised capture's debug handles, so that the gap
is the whole quantisation error. ``capture.capture_float_reference`` is the
public entry point.
"""

from __future__ import annotations

import collections
import logging
import operator
import os
from dataclasses import dataclass, field
from typing import Any, Sequence

import torch
from executorch.devtools.etrecord import ETRecord
from executorch.exir import EdgeProgramManager, ExecutorchProgramManager
from torch.export import ExportedProgram
from torch.fx import GraphModule, Interpreter, Node
from torch.utils._pytree import tree_leaves

from gapscope_capture.etrecord_capture import (
    EXPORTED_PROGRAM,
    FLOAT_EXPORTED_PROGRAM,
    CaptureError,
    CaptureResult,
    capture_from_etrecord,
    capture_from_program,
)
from gapscope_capture.capture_format import Capture, CaptureRecord
from gapscope_capture.float_values import drop_unit_dims, in_program_dtypes
from gapscope_capture.provenance import FloatCounterparts
from gapscope_capture.provenance import kind as _kind

log = logging.getLogger(__name__)

_aten = torch.ops.aten
# Ops PT2E's prepare_pt2e folds a following BatchNorm into (torchao.quantization.pt2e.utils:
# _fuse_conv_bn_ for conv and conv-transpose, _fuse_linear_bn_ for linear on a 2-D input).
_CONVOLUTIONS = frozenset(
    {
        _aten.conv1d.default,
        _aten.conv2d.default,
        _aten.conv3d.default,
        _aten.conv1d.padding,
        _aten.conv2d.padding,
        _aten.conv3d.padding,
        _aten.conv_transpose1d.default,
        _aten.conv_transpose2d.input,
        _aten.conv_transpose3d.input,
        _aten.convolution.default,
    }
)
_LINEAR = _aten.linear.default
# aten.batch_norm returns the tensor; the _native_* forms a tuple whose item 0 is it.
_BATCH_NORMS = frozenset(
    {
        _aten.batch_norm.default,
        _aten._native_batch_norm_legit_no_training.default,
        _aten._native_batch_norm_legit.default,
    }
)


def capture_float_reference(
    float_program: ExportedProgram | GraphModule,
    quantized: CaptureResult
    | Capture
    | ETRecord
    | ExecutorchProgramManager
    | EdgeProgramManager
    | str
    | os.PathLike[str],
    inputs: Sequence[Any] | None = None,
) -> CaptureResult:
    """Capture the *float* model under the debug-handle keys of a quantised capture.

    A PT2E-quantised program's own reference graph simulates the quantisation,
    so comparing the device with it shows almost no error. This capture holds
    instead what the float model (``float_program``: the program exported
    before ``prepare_pt2e``/``convert_pt2e``, or its ``.module()``) computes,
    keyed like the quantised capture so that Gapscope aligns it with the
    device's events: the gap then is the whole quantisation error.

    ``quantized`` is the quantised program's capture (a ``CaptureResult``, or a
    ``Capture`` read from a file), or what to make it from: an ETRecord path
    (``capture_from_etrecord``) or an ETRecord / program manager
    (``capture_from_program``). ``inputs`` default to the quantised capture's
    inputs; given together with a capture that holds other inputs, they are an
    error, since both sides must run on the same inputs.

    Which float node a record stands for: the last op of the record that has a
    float counterpart (quantize/dequantize nodes have none). The counterpart is
    found by provenance when the quantised graph's is known (``CaptureResult.provenance``,
    kept by ``capture_from_etrecord``/``capture_from_program``, so also for an
    ETRecord path or a program): each quantised node's ``from_node`` chain ends
    in the float node ``prepare_pt2e`` started from. Names alone are not
    enough: the re-export after ``convert_pt2e`` renumbers ops of a kind the
    quantiser removed some of (with two of four ``batch_norm`` folded, the
    quantised ``batch_norm_1`` is the float ``batch_norm_3``). For a
    ``Capture`` read from a file, node names are matched and PT2E's folding
    rule is assumed; a record of a renumbered kind is then written without a
    value.

    Which value: what the quantised node computes, in float. ``prepare_pt2e``
    folds a BatchNorm that follows a convolution (or a linear on a 2-D input)
    into it and deletes it, so the quantised ``conv2d`` outputs conv +
    BatchNorm: its record holds the float BatchNorm's output. Any other float
    consumer of the node that the quantised program lacks is checked: when its
    output equals the node's (a no-op), it does not matter; otherwise whether
    the quantised node absorbed it cannot be told.

    Records without a float counterpart are left out: those holding only
    ``quantize_*``/``dequantize_*`` nodes (the quantised input, dequantised
    weights, requantisation between ops). A record whose correspondence cannot
    be established (an unexplained consumer missing from the quantised program,
    several folded BatchNorms on one node, an output of another count or shape,
    a renumbered op of a name-matched capture) is written without a value
    (``null`` outputs), so that Gapscope shows its row invalid instead of a
    number; the reason is logged as a warning. A capture of the edge dialect
    program, whose nodes are named ``aten_convolution_default`` etc., matches
    nothing and is refused.

    The record keeps the quantised record's ``debug_handle``, ``ops``,
    ``stack_traces``, ``quantization`` and ``axis_order`` (they describe the
    device's tensors). Each float value carries the error accumulated up to
    that op (weights, activations, input), not the op's local quantisation
    error.

    ``reference_graph`` says ``float_exported_program (handles by node
    provenance|name from <the quantised capture's reference graph>)``;
    ``method``, ``etrecord_sha256`` and ``etrecord_entries_sha256`` are the quantised capture's;
    ``reference_outputs`` are the float program's outputs.
    """
    if isinstance(quantized, (str, os.PathLike)):
        quantized = capture_from_etrecord(quantized, inputs)
    elif not isinstance(quantized, (CaptureResult, Capture)):
        quantized = capture_from_program(quantized, inputs)
    model_inputs = _float_reference_inputs(quantized, inputs)

    graph_module = (
        float_program.module() if isinstance(float_program, ExportedProgram) else float_program
    )
    if not isinstance(graph_module, GraphModule):
        raise CaptureError(
            f"the float program must be an ExportedProgram or a GraphModule, not a "
            f"{type(float_program).__name__}"
        )
    # Provenance of the quantised graph's nodes (CaptureResult.provenance), if known.
    plans, by = _plan(graph_module, quantized.records, getattr(quantized, "provenance", None))
    # By provenance, any graph of the quantised program will do (QNN's debugger
    # captures the graph it lowered, edge_after_transform); by name, only the ATen one.
    if not plans or (by == "name" and quantized.reference_graph not in (None, EXPORTED_PROGRAM)):
        raise CaptureError(
            "no op of the quantised capture names a node of the float program: capture the "
            f"quantised program's ATen '{EXPORTED_PROGRAM}' (its reference graph is "
            f"'{quantized.reference_graph}') and pass the float program exported before "
            "prepare_pt2e"
        )

    flat_inputs = in_program_dtypes(graph_module, tree_leaves(list(model_inputs)))
    wanted = {name for plan in plans.values() for name in plan.nodes_to_record()}
    recorder = _NodeOutputRecorder(graph_module, wanted)
    try:
        with torch.no_grad():
            outputs = recorder.run(*flat_inputs)
    except Exception as exc:  # the float program rejects these inputs
        raise CaptureError(
            f"running the float program on the inputs failed: {type(exc).__name__}: {exc}"
        ) from exc

    records = []
    valid = 0
    for record in quantized.records:
        plan = plans.get(record.debug_handle)
        if plan is None:
            continue
        problem = plan.problem or plan.check_vanished(recorder.values)
        float_record = None
        if problem is None:
            float_record = CaptureRecord.from_intermediate_output(
                record.debug_handle, plan.value(recorder.values), record.ops, record.stack_traces
            )
            drop_unit_dims(float_record, record)
            mismatch = _structure_mismatch(float_record, record)
            if mismatch:
                problem = f"float node '{plan.value_name}' does not match the quantised output ({mismatch})"
        if problem is not None:
            records.append(_invalid_record(record, problem))
            continue
        if plan.value_name != plan.node.name:
            log.info(
                "record %s: '%s' absorbed %s; its float value is '%s'",
                list(record.debug_handle),
                plan.node.name,
                ", ".join(f"'{n}'" for n in plan.folded),
                plan.value_name,
            )
        if record.quantization is not None:
            float_record.quantization = [None if q is None else dict(q) for q in record.quantization]
        if record.axis_order is not None:
            float_record.axis_order = list(record.axis_order)
        records.append(float_record)
        valid += 1
    if not valid:
        raise CaptureError("no float node output matches the quantised capture's outputs")
    return CaptureResult(
        records=records,
        inputs=flat_inputs,
        reference_outputs=tree_leaves(outputs),
        reference_graph=f"{FLOAT_EXPORTED_PROGRAM} (handles by node {by} from "
        f"{quantized.reference_graph or 'an in-memory program'})",
        method=quantized.method,
        etrecord_sha256=quantized.etrecord_sha256,
        etrecord_entries_sha256=quantized.etrecord_entries_sha256,
        # Each record keeps its quantised record's axis_order: recorded where it was.
        layout_recorded=bool(getattr(quantized, "layout_recorded", False)),
    )


@dataclass
class _Plan:
    """Which float value one quantised record stands for."""

    node: Node  # the float counterpart of the record's last matched op
    value_node: Node | None = None  # the node whose output the quantised op computes
    value_index: int | None = None  # element of a tuple output (_native_batch_norm_*)
    folded: list[str] = field(default_factory=list)
    # Float consumers the quantised program lacks, not known folds: (consumer, the node it reads).
    vanished: list[tuple[Node, Node]] = field(default_factory=list)
    problem: str | None = None

    @property
    def value_name(self) -> str:
        return (self.value_node or self.node).name

    def nodes_to_record(self) -> set[str]:
        names = {self.value_name}
        for consumer, producer in self.vanished:
            names |= {consumer.name, producer.name}
        return names

    def value(self, values: dict[str, Any]) -> Any:
        value = values[self.value_name]
        return value if self.value_index is None else value[self.value_index]

    def check_vanished(self, values: dict[str, Any]) -> str | None:
        """A consumer the quantised program lacks matters unless it is a no-op on these inputs."""
        for consumer, producer in self.vanished:
            mine, theirs = values.get(consumer.name), values.get(producer.name)
            if isinstance(mine, torch.Tensor) and isinstance(theirs, torch.Tensor):
                if mine.shape == theirs.shape and mine.dtype == theirs.dtype and torch.equal(mine, theirs):
                    log.debug("'%s' has no quantised counterpart but is a no-op here", consumer.name)
                    continue
            return (
                f"the quantised program has no counterpart of the float '{consumer.name}' "
                f"({_target_name(consumer)}), which reads '{producer.name}' and changes its value: "
                f"whether the quantised '{self.node.name}' absorbed it cannot be told"
            )
        return None


def _plan(
    float_graph: GraphModule,
    records: Sequence[CaptureRecord],
    quantized: dict[str, tuple[str, tuple[str, ...]]] | None,
) -> tuple[dict[tuple[int, ...], _Plan], str]:
    """Per record key, the float node and value it stands for; and 'provenance' or 'name'."""
    float_nodes = {
        node.name: node
        for node in float_graph.graph.nodes
        if node.op == "call_function" and node.target is not operator.getitem
    }
    provenance = FloatCounterparts(float_graph, quantized)
    if provenance.usable:
        origin = provenance.origin
        # Float nodes some quantised node descends from; the others the quantiser removed.
        kept = provenance.kept
        renumbered: dict[str, int] = {}
        by = "provenance"
    else:
        origin = float_nodes.get
        # PT2E deletes the BatchNorms it folds; re-exporting renumbers the others of their kind,
        # which PT2E keeps whatever their names have become.
        folded = {n for n in float_nodes.values() if _pt2e_folds(n)}
        renumbered = collections.Counter(_kind(n) for n in folded)
        # A node without a record may still be in the program (a handle ExecuTorch could not
        # propagate back): only PT2E's own folds count as removed.
        kept = {node for node in float_nodes.values() if node not in folded}
        by = "name"
    plans = {}
    for record in records:
        node = next((n for n in map(origin, reversed(record.ops)) if n is not None), None)
        if node is None and by == "provenance":
            # A view the lowering added (QNN's reshapes around a linear): the value of
            # the op it views, if the shapes agree but for size-1 dimensions.
            node = provenance.viewed(record.ops[-1])
            if node is not None:
                plans[record.debug_handle] = _Plan(node)
            continue
        if node is None:
            continue
        plan = _Plan(node)
        if _kind(node) in renumbered:
            plan.problem = (
                f"the quantiser folded {renumbered[_kind(node)]} '{node.target}' node(s) and the "
                "re-export renumbered the others, so the "
                f"quantised '{node.name}' need not be the float '{node.name}'; capture from the "
                "ETRecord or program to match by provenance"
            )
        else:
            _follow_folds(plan, kept)
        plans[record.debug_handle] = plan
    return plans, by


def _follow_folds(plan: _Plan, kept: set[Node]) -> None:
    """Move the plan's value past float consumers the quantiser folded into the node."""
    current = plan.node
    while True:
        gone = [
            user
            for user in current.users
            if user.op == "call_function" and user.target is not operator.getitem and user not in kept
        ]
        folds = [user for user in gone if _folds_into(current, user)]
        plan.vanished += [(user, current) for user in gone if user not in folds]
        if not folds:
            return
        if len(folds) > 1 or plan.folded:
            plan.problem = (
                f"the quantiser folded {', '.join(repr(n.name) for n in [*plan.folded, *folds])} into "
                f"'{plan.node.name}': which float value the quantised op computes cannot be told"
            )
            return
        (norm,) = folds
        others = [u.name for u in current.users if u is not norm and u in kept]
        if others:
            # PT2E rewires every use of the BatchNorm to the conv; the conv's other consumers
            # now read conv + BatchNorm in the quantised program but the bare conv in the float.
            log.warning(
                "'%s' feeds the folded '%s' and also %s: in the quantised program those read "
                "the folded value, in the float model the conv's own output",
                plan.node.name,
                norm.name,
                ", ".join(repr(o) for o in others),
            )
        plan.folded.append(norm.name)
        if norm.target is _aten.batch_norm.default:
            plan.value_node, plan.value_index, current = norm, None, norm
        else:
            item = next(
                (u for u in norm.users if u.target is operator.getitem and u.args[1] == 0), None
            )
            if item is None:
                plan.value_node, plan.value_index = norm, 0
                return
            plan.value_node, plan.value_index, current = item, None, item


def _folds_into(producer: Node, norm: Node) -> bool:
    """Whether ``norm`` is a BatchNorm of ``producer`` that a weighted op can absorb."""
    return (
        norm.target in _BATCH_NORMS
        and bool(norm.args)
        and norm.args[0] is producer
        and (producer.target in _CONVOLUTIONS or producer.target is _LINEAR)
    )


def _pt2e_folds(norm: Node) -> bool:
    """PT2E's own rule (prepare_pt2e: _fuse_conv_bn_, _fuse_linear_bn_) for folding ``norm``."""
    if norm.op != "call_function" or norm.target not in (
        _aten.batch_norm.default,
        _aten._native_batch_norm_legit_no_training.default,
    ):
        return False
    producer = norm.args[0] if norm.args else None
    if not isinstance(producer, Node) or producer.op != "call_function":
        return False
    if producer.target in _CONVOLUTIONS:
        return True
    if producer.target is _LINEAR:
        source = producer.args[0]
        value = source.meta.get("val") if isinstance(source, Node) else None
        return not (isinstance(value, torch.Tensor) and value.ndim > 2)
    return False


def _target_name(node: Node) -> str:
    schema = getattr(node.target, "_schema", None)
    return schema.name if schema is not None else str(node.target)


def _invalid_record(record: CaptureRecord, reason: str) -> CaptureRecord:
    """The record without a value: Gapscope shows its row invalid, never a number."""
    log.warning("record %s (%s): %s; written without a value", list(record.debug_handle), record.ops[-1], reason)
    return CaptureRecord(
        record.debug_handle,
        list(record.ops),
        [None] * len(record.outputs),
        record.sequence,
        dict(record.stack_traces),
        axis_order=None if record.axis_order is None else list(record.axis_order),
        invalid_reason=reason,
    )


class _NodeOutputRecorder(Interpreter):
    """Runs a graph, keeping the named nodes' outputs as ``IntermediateOutputCapturer`` stores them."""

    def __init__(self, module: GraphModule, names: set[str]) -> None:
        super().__init__(module)
        self.names = names
        self.values: dict[str, Any] = {}

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        if n.name in self.names:
            if isinstance(result, torch.Tensor):
                self.values[n.name] = result.detach().clone()
            elif isinstance(result, (tuple, list)):
                self.values[n.name] = [
                    r.detach().clone() if isinstance(r, torch.Tensor) else r for r in result
                ]
            else:
                self.values[n.name] = result
        return result


def _float_reference_inputs(
    quantized: CaptureResult | Capture, inputs: Sequence[Any] | None
) -> list[Any]:
    """The inputs both sides ran on: the capture's, which given ``inputs`` must equal."""
    if quantized.inputs is None:
        if inputs is None:
            raise CaptureError("the quantised capture holds no inputs: pass the inputs it ran on")
        return list(inputs)
    if inputs is not None and not _same_values(tree_leaves(list(inputs)), list(quantized.inputs)):
        raise CaptureError(
            "the inputs differ from those the quantised capture ran on; both sides must use the same"
        )
    return list(quantized.inputs)


def _same_values(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(
        torch.equal(x, y)
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)
        else type(x) is type(y) and x == y
        for x, y in zip(a, b)
    )


def _structure_mismatch(float_record: CaptureRecord, quantized: CaptureRecord) -> str | None:
    """Why the float output cannot stand for the quantised one, or ``None``."""
    if float_record.sequence != quantized.sequence or len(float_record.outputs) != len(
        quantized.outputs
    ):
        return (
            f"{len(float_record.outputs)} output(s) (sequence: {float_record.sequence}) against "
            f"{len(quantized.outputs)} (sequence: {quantized.sequence})"
        )
    for index, (mine, theirs) in enumerate(zip(float_record.outputs, quantized.outputs)):
        if isinstance(mine, torch.Tensor) != isinstance(theirs, torch.Tensor):
            return f"output {index}: a tensor against a non-tensor"
        if isinstance(mine, torch.Tensor) and mine.shape != theirs.shape:
            return f"output {index}: shape {list(mine.shape)} against {list(theirs.shape)}"
    return None
