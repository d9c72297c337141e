"""The reference of a QNN-delegated program, keyed by the delegate's own debug handles.

ExecuTorch's Qualcomm backend gives every node of the graph it lowers (the edge
program after QNN's passes, ETRecord graph-map entry
``edge_after_transform/forward``) a fresh debug handle, and its ``delegate_map``
maps the dumped QNN tensor names (``aten_convolution_default@0``) to those
handles. ``QNNIntermediateDebugger`` compares the device with that graph: this
module captures the same graph with the same inputs, and records what the
debugger's comparator needs to read a device tensor, which the serialised
ETRecord does not keep: each output's ``quant_attrs`` (scale, zero point,
quant min/max, dtype; per channel where QNN has ``scales``) and ``axis_order``
(QNN's channels-last layout). Those live only in the in-memory edge program
``debugger.edge_ep``.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

from torch.export import ExportedProgram

from gapscope_capture import etrecord_capture as _capture

log = logging.getLogger(__name__)

# The graph-map entry QNNIntermediateDebugger compares with (its
# ``reference_graph_name``; spelled out for debuggers that predate the attribute).
QNN_REFERENCE_GRAPH = _capture.QNN_REFERENCE_GRAPH


def capture_from_qnn_debugger(
    debugger: Any, inputs: Sequence[Any] | None = None
) -> "_capture.CaptureResult":
    """Capture what ``debugger`` (a ``QNNIntermediateDebugger``) compares the device with.

    Call it after ``build_executorch_binary(..., qnn_intermediate_debugger=debugger)``,
    which sets ``debugger.edge_ep`` and ``debugger.etrecord_file_path``.

    - The reference graph is the debugger's (``edge_after_transform/forward``),
      read from the ETRecord file exactly as ExecuTorch's Inspector reads it
      for the debugger, and run on ``inputs`` (default: the debugger's
      ``sample_input``). Without an ETRecord file the in-memory edge program
      is captured instead.
    - Every record then takes its quantisation and ``axis_order`` from the
      node of ``debugger.edge_ep`` with the same debug handle and the same
      name. A record whose handle names another node there keeps none, and
      Gapscope then refuses to compare a quantised device tensor with it
      rather than guessing.
    """
    edge_ep = getattr(debugger, "edge_ep", None)
    if not isinstance(edge_ep, ExportedProgram):
        raise _capture.CaptureError(
            "the QNNIntermediateDebugger holds no edge program: call capture_from_qnn_debugger "
            "after build_executorch_binary(..., qnn_intermediate_debugger=debugger)"
        )
    model_inputs = list(inputs) if inputs is not None else _sample_inputs(debugger)
    reference_graph = getattr(debugger, "reference_graph_name", None) or QNN_REFERENCE_GRAPH
    etrecord_path = getattr(debugger, "etrecord_file_path", None)
    if etrecord_path:
        result = _capture.capture_from_etrecord(
            etrecord_path, inputs=model_inputs, reference_graph=reference_graph
        )
    else:
        result = _capture.capture_from_program(edge_ep, model_inputs)
    matched = annotate_from_graph(result, edge_ep.graph_module)
    # A null axis_order then means "same layout" for every record, not "unknown".
    result.layout_recorded = matched == len(result.records)
    if not result.layout_recorded:
        log.warning(
            "%d of %d records have no node of the same handle and name in debugger.edge_ep; "
            "their quantisation and layout are unknown",
            len(result.records) - matched,
            len(result.records),
        )
    return result


def annotate_from_graph(result: "_capture.CaptureResult", graph_module: Any) -> int:
    """Set each record's quantisation and ``axis_order`` from ``graph_module``'s node metadata.

    Records are matched by debug-handle key and by the name of the node whose
    value the capture stored (the key's last node); a record whose node is
    named differently in ``graph_module`` is left untouched. Returns the
    number of records matched.
    """
    nodes = _capture.captured_nodes(graph_module)
    matched = 0
    for record in result.records:
        candidates = nodes.get(record.debug_handle)
        if not candidates or candidates[-1].name != record.ops[-1]:
            continue
        _capture.annotate_record(record, candidates[-1], graph_module)
        matched += 1
    return matched


def _sample_inputs(debugger: Any) -> list[Any]:
    sample = getattr(debugger, "sample_input", None)
    if sample is None:
        raise _capture.CaptureError("the debugger has no sample_input: pass inputs")
    return list(sample) if isinstance(sample, (tuple, list)) else [sample]
