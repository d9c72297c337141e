"""Where each node of a graph came from: its op kind and its ``from_node`` chain.

``capture_float_reference`` finds the float counterpart of a quantised node by it;
a capture keeps it in memory for the graph it ran (``CaptureResult.provenance``).
"""

from __future__ import annotations

from torch.fx import GraphModule, Node


def node_provenance(graph_module: GraphModule) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each ``call_function`` node's name -> (its op kind, its ``from_node`` chain).

    What ``capture_float_reference`` needs of the quantised graph, a few strings per node;
    ``CaptureResult.provenance`` keeps it in memory (it is never written to a file).
    """
    return {
        node.name: (kind(node), chain(node))
        for node in graph_module.graph.nodes
        if node.op == "call_function"
    }


def chain(node: Node) -> tuple[str, ...]:
    """The node's name and its single-source ``from_node`` ancestors' names, newest first."""
    names = [node.name]
    sources = node.meta.get("from_node") or []
    while len(sources) == 1:
        names.append(sources[0].name)
        sources = sources[0].from_node or []
    if sources:  # a node made from several: their names, in order, end the chain
        names.append("|".join(source.name for source in sources))
    return tuple(names)


def kind(node: Node) -> str:
    """The op a node calls, as torch.export names its nodes (``batch_norm`` for
    aten.batch_norm.default), in-place or not (``hardtanh_`` is ``hardtanh``)."""
    name = getattr(node.target, "__name__", str(node.target))
    return name.split(".")[0].rstrip("_") or name
