"""Which graph of an ETRecord a capture runs: ExecuTorch 1.5's Inspector's choice.

Apart from ``etrecord_capture`` (which runs it) so that the capture engine
stays one file's reading: the default is the ATen program with debug handles
propagated back from the edge program (read as an ``EdgeProvenance``, issue
60), else the edge program; a ``graph_map`` key names any other.
"""

from __future__ import annotations

import logging

from executorch.devtools.etrecord import ETRecord
from executorch.devtools.inspector._inspector_utils import propagate_back_debug_handle
from torch.export import ExportedProgram

from gapscope_capture.backend_conventions import QNN_BACKEND, QNN_REFERENCE_GRAPH
from gapscope_capture.capture_errors import CaptureError
from gapscope_capture.etrecord_reader import LazyETRecord
from gapscope_capture.handle_propagation import symbolic_nodes_without_ancestor

log = logging.getLogger(__name__)

FORWARD = "forward"
EXPORTED_PROGRAM = "exported_program"
EDGE_DIALECT_PROGRAM = "edge_dialect_exported_program"


def resolve_reference_graph(
    etrecord: ETRecord, reference_graph: str | None = None, method: str = FORWARD
) -> tuple[ExportedProgram, str]:
    """Pick the ETRecord graph to capture, by ExecuTorch 1.5's ``Inspector._resolve_reference_graph`` rule.

    - ``None``: ``exported_program`` (ATen) if present and debug-handle
      back-propagation from the edge program succeeds, else
      ``edge_dialect_exported_program``;
    - ``"exported_program"``: that, or an error if back-propagation fails;
    - ``"edge_dialect_exported_program"``: the edge dialect program;
    - anything else: a ``graph_map`` key, ``/forward`` appended when the name
      has no ``/``.

    Returns the program and its name (graph-map names with the method). The
    Inspector handles only ``forward`` (ExecuTorch 1.5.1 raises on a
    multi-method ETRecord); for another ``method`` the default is that
    method's edge dialect program, since the ETRecord's ATen program is
    ``forward``'s only.
    """
    methods = _edge_methods(etrecord)
    if methods is not None and method not in methods:
        raise CaptureError(
            f"the ETRecord has no method '{method}'; its methods: "
            + ", ".join(f"'{m}'" for m in sorted(methods))
        )
    if methods is None and method != FORWARD:
        raise CaptureError(f"the ETRecord holds one method ('{FORWARD}'), not '{method}'")
    # Back-propagation reads the edge graph's nodes only: a file's ETRecord gives
    # it without deserialising its weights (etrecord_reader.LazyETRecord.edge_graph).
    if isinstance(etrecord, LazyETRecord):
        edge_program = etrecord.edge_graph(method)
    else:
        edge_program = _edge_program(etrecord, method)
    name = reference_graph
    if reference_graph is None and method != FORWARD:
        name = EDGE_DIALECT_PROGRAM
    elif reference_graph is None or reference_graph == EXPORTED_PROGRAM:
        why = "the ETRecord has no ATen exported program or edge program"
        propagated = False
        if etrecord.exported_program is not None and edge_program is not None:
            why = "debug handle back-propagation from the edge program failed"
            try:
                propagated = propagate_back_debug_handle(
                    etrecord.exported_program, etrecord.export_graph_id, edge_program
                )
            except AssertionError:
                # ExecuTorch 1.5.1 keys ancestors by "<name>.<graph_id>", and a
                # graph_id is the Python id() of a graph of the export: once one
                # was freed, another can reuse its id, two ancestors collide and
                # its consistency assertion fires. Its Inspector raises on such an
                # ETRecord; we fall back as for a failed back-propagation.
                why = (
                    "ExecuTorch's debug handle back-propagation asserted: two nodes of the "
                    "ETRecord's provenance share a '<name>.<graph_id>' (graph ids are Python "
                    "object ids, reused during export); ExecuTorch's Inspector raises here"
                )
        if not propagated and reference_graph == EXPORTED_PROGRAM and why.startswith("debug handle"):
            # Asked for by name (the float reference needs the ATen graph): where
            # the only edge nodes without an ATen ancestor are symbolic sizes,
            # nothing comparable is lost, and the handles are applied without
            # ExecuTorch's all-or-nothing check (which its Inspector skips too for
            # re-exported symbolic shapes, per its docstring).
            if isinstance(etrecord, LazyETRecord):  # the check reads each node's value too
                edge_program = etrecord.edge_graph(method, values=True)
            symbolic = symbolic_nodes_without_ancestor(etrecord, edge_program)
            if symbolic:
                propagated = propagate_back_debug_handle(
                    etrecord.exported_program,
                    etrecord.export_graph_id,
                    edge_program,
                    disable_debug_handle_valdiation=True,
                )
                log.info(
                    "%d symbolic-size node(s) of the edge program (%s) have no ATen ancestor: "
                    "dynamic shapes make torch.export re-create them when it decomposes. They "
                    "hold no tensor, so the ATen graph is used; ExecuTorch's Inspector falls "
                    "back to the edge program here",
                    len(symbolic),
                    ", ".join(symbolic[:3]) + (", ..." if len(symbolic) > 3 else ""),
                )
        if propagated:
            name = EXPORTED_PROGRAM
        elif reference_graph is None:
            log.warning("%s; using '%s' as the reference graph", why, EDGE_DIALECT_PROGRAM)
            name = EDGE_DIALECT_PROGRAM
        else:
            raise CaptureError(f"cannot use '{EXPORTED_PROGRAM}': {why}")
    if name == EXPORTED_PROGRAM:
        return etrecord.exported_program, name
    if name == EDGE_DIALECT_PROGRAM:
        if edge_program is None:
            raise CaptureError(f"the ETRecord has no edge dialect program for '{method}'")
        return _edge_program(etrecord, method), name
    lookup = name if "/" in name else f"{name}/{method}"
    graph_map = etrecord.graph_map or {}
    if lookup not in graph_map:
        raise CaptureError(
            f"reference graph '{lookup}' not found; available: '{EXPORTED_PROGRAM}', "
            f"'{EDGE_DIALECT_PROGRAM}'" + "".join(f", '{key}'" for key in graph_map)
        )
    return graph_map[lookup], lookup


def _edge_methods(etrecord: ETRecord) -> list[str] | None:
    """The methods of a multi-method ETRecord's edge programs; None for one program."""
    if isinstance(etrecord, LazyETRecord):
        methods = etrecord.edge_methods()
        return methods if methods is None or len(methods) > 1 else None
    programs = etrecord.edge_dialect_program
    return list(programs) if isinstance(programs, dict) else None


def _edge_program(etrecord: ETRecord, method: str) -> ExportedProgram | None:
    """``method``'s edge dialect program, whole (to run)."""
    programs = etrecord.edge_dialect_program
    return programs.get(method) if isinstance(programs, dict) else programs


def lowered_to_qnn(etrecord: ETRecord) -> bool:
    """Whether a delegate of the forward method is ExecuTorch's Qualcomm backend."""
    delegate_map = getattr(etrecord, "_delegate_map", None) or {}  # no public getter
    entries = delegate_map.get(FORWARD) or {}
    return any(
        isinstance(entry, dict) and entry.get("name") == QNN_BACKEND for entry in entries.values()
    ) and QNN_REFERENCE_GRAPH in (etrecord.graph_map or {})


def method_of(graph_name: str | None, method: str) -> str:
    """A graph-map name such as ``edge_after_transform/prefill`` names its method itself."""
    return graph_name.split("/", 1)[1] if graph_name and "/" in graph_name else method
