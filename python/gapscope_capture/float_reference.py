"""The float model's reference, keyed like a quantised program's capture.

A PT2E-quantised program's own reference graph simulates the quantisation, so
the device matches it almost exactly; this captures what the float model
computes instead, under the quantised capture's debug handles, so that the gap
is the whole quantisation error. ``capture.capture_float_reference`` is the
public entry point.
"""

from __future__ import annotations

import logging
import operator
import os
from typing import Any, Sequence

import torch
from executorch.devtools.etrecord import ETRecord
from executorch.exir import EdgeProgramManager, ExecutorchProgramManager
from torch.export import ExportedProgram
from torch.fx import GraphModule, Interpreter, Node
from torch.utils._pytree import tree_leaves

from gapscope_capture.capture import (
    EXPORTED_PROGRAM,
    FLOAT_EXPORTED_PROGRAM,
    CaptureError,
    CaptureResult,
    capture_from_etrecord,
    capture_from_program,
)
from gapscope_capture.capture_format import Capture, CaptureRecord

log = logging.getLogger(__name__)


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

    Matching rule: for each record of the quantised capture, in order, the
    last name in its ``ops`` that is also the name of a ``call_function`` node
    (other than ``getitem``) of the float graph picks the float node whose
    output is recorded (a tuple/list output becomes a sequence record, as
    ``IntermediateOutputCapturer`` stores it). This works because PT2E and
    ``torch.export`` keep the names of the compute nodes (``conv2d``,
    ``relu``, ``layer_norm``, ``linear``, ``softmax``, ``topk``, …) and the
    quantised capture comes from the ATen ``exported_program``. The record
    keeps the quantised record's ``debug_handle``, ``ops``, ``stack_traces``,
    ``quantization`` and ``axis_order`` (they describe the device's tensors).

    Limits:

    - records without a float counterpart are left out: those holding only
      ``quantize_*``/``dequantize_*`` nodes (the quantised input, dequantised
      weights, requantisation between ops); a capture of the edge dialect
      program, whose nodes are named ``aten_convolution_default`` etc., matches
      nothing and is refused;
    - a record whose float output differs in count or tensor shapes from the
      quantised one is left out with a warning (a wrong match);
    - names are matched, not semantics: when the quantiser rewrites the graph
      (e.g. folds ``batch_norm`` into ``conv2d``, whose quantised output is
      then the float graph's ``batch_norm`` output) a same-named float node
      can hold a different quantity; check such records;
    - each float value carries the error accumulated up to that op (weights,
      activations, input), not the op's local quantisation error.

    ``reference_graph`` says ``float_exported_program (handles by node name
    from <the quantised capture's reference graph>)``; ``method`` and
    ``etrecord_sha256`` are the quantised capture's; ``reference_outputs`` are
    the float program's outputs.
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
    float_names = {
        node.name
        for node in graph_module.graph.nodes
        if node.op == "call_function" and node.target is not operator.getitem
    }
    # The last op of each record that names a float node (Q/DQ nodes name none).
    matches = {}
    for record in quantized.records:
        name = next((op for op in reversed(record.ops) if op in float_names), None)
        if name is not None:
            matches[record.debug_handle] = name
    if not matches:
        raise CaptureError(
            "no op of the quantised capture names a node of the float program: capture the "
            f"quantised program's ATen '{EXPORTED_PROGRAM}' (its reference graph is "
            f"'{quantized.reference_graph}') and pass the float program exported before "
            "prepare_pt2e"
        )

    flat_inputs = tree_leaves(list(model_inputs))
    recorder = _NodeOutputRecorder(graph_module, set(matches.values()))
    try:
        with torch.no_grad():
            outputs = recorder.run(*flat_inputs)
    except Exception as exc:  # the float program rejects these inputs
        raise CaptureError(
            f"running the float program on the inputs failed: {type(exc).__name__}: {exc}"
        ) from exc

    records = []
    for record in quantized.records:
        name = matches.get(record.debug_handle)
        if name is None:
            continue
        float_record = CaptureRecord.from_intermediate_output(
            record.debug_handle, recorder.values[name], record.ops, record.stack_traces
        )
        mismatch = _structure_mismatch(float_record, record)
        if mismatch:
            log.warning(
                "record %s: float node '%s' does not match the quantised output (%s); left out",
                list(record.debug_handle),
                name,
                mismatch,
            )
            continue
        if record.quantization is not None:
            float_record.quantization = [None if q is None else dict(q) for q in record.quantization]
        if record.axis_order is not None:
            float_record.axis_order = list(record.axis_order)
        records.append(float_record)
    if not records:
        raise CaptureError("no float node output matches the quantised capture's outputs")
    return CaptureResult(
        records=records,
        inputs=flat_inputs,
        reference_outputs=tree_leaves(outputs),
        reference_graph=f"{FLOAT_EXPORTED_PROGRAM} (handles by node name from "
        f"{quantized.reference_graph or 'an in-memory program'})",
        method=quantized.method,
        etrecord_sha256=quantized.etrecord_sha256,
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
