"""Debug handles propagated back from the edge program to the ATen program: where
ExecuTorch's all-or-nothing check fails for nodes that hold no tensor."""

from __future__ import annotations

from executorch.devtools.etrecord import ETRecord
from executorch.devtools.inspector._inspector_utils import (
    _extract_ancestor_debug_handles,
    _find_matched_debug_handles,
)
from torch import Tensor
from torch.export import ExportedProgram


def symbolic_nodes_without_ancestor(etrecord: ETRecord, edge_program: ExportedProgram) -> list[str]:
    """The edge program's nodes whose debug handle has no node in the ATen program,
    when every one of them computes a symbolic size (no tensor); else ``[]``.

    A program exported with dynamic shapes has ``sym_size`` nodes that
    ``run_decompositions`` re-creates: their ``from_node`` names a node of a graph
    the ETRecord's ATen program does not hold, so ExecuTorch's
    ``propagate_back_debug_handle`` reports the whole program unmatched (issue 54:
    a static-cache Llama exported with a dynamic sequence length)."""
    ancestors = _extract_ancestor_debug_handles(edge_program)
    matched = _find_matched_debug_handles(
        etrecord.exported_program, etrecord.export_graph_id, ancestors
    )
    unmatched = []
    for node in edge_program.graph.nodes:
        if node.op in ("output", "placeholder"):
            continue
        if node.meta.get("debug_handle") in matched:
            continue
        if isinstance(node.meta.get("val"), Tensor) or node.meta.get("val") is None:
            return []
        unmatched.append(node.name)
    return unmatched
