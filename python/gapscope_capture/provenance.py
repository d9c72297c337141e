"""Where each node of a graph came from: its op kind and its ``from_node`` chain.

``capture_float_reference`` finds the float counterpart of a quantised node by it;
a capture keeps it in memory for the graph it ran (``CaptureResult.provenance``).
"""

from __future__ import annotations

import operator

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


# Ops that name one computation differently in the float and the lowered graph.
_ALIASES = {"transpose": "permute", "reshape": "view", "_unsafe_view": "view", "_softmax": "softmax"}
_VIEWS = {"view", "reshape", "_unsafe_view", "unsqueeze", "squeeze", "flatten"}


def _alias(op: str) -> str:
    return _ALIASES.get(op, op)


def kind(node: Node) -> str:
    """The op a node calls, as torch.export names its nodes (``batch_norm`` for
    aten.batch_norm.default), in-place or not (``hardtanh_`` is ``hardtanh``)."""
    name = getattr(node.target, "__name__", str(node.target))
    # An edge dialect op (EdgeOpOverload) is named "aten.linear.default", and its
    # view ops are copies ("view_copy" stands for "view").
    name = name.removeprefix("aten.").split(".")[0]
    return name.removesuffix("_copy").rstrip("_") or name


class FloatCounterparts:
    """Float counterparts of quantised nodes by their ``from_node`` chains.

    ``prepare_pt2e`` starts from ``float_program.module()``, whose nodes carry
    ``from_node = [<their own name> (ExportedProgram.module())]``; every node
    that PT2E and the re-export derive from one keeps that chain at the end of
    its own. A float node is the counterpart of a quantised node of the same
    op kind when the float node's name followed by its chain ends the
    quantised node's chain. Observers and the quantize/dequantize nodes made
    from them have ``activation_post_process_<n>`` in their chain, so they
    match no float node.
    """

    def __init__(
        self, float_graph: GraphModule, quantized: dict[str, tuple[str, tuple[str, ...]]] | None
    ) -> None:
        self._by_chain: dict[tuple[str, ...], Node] = {}
        self._lengths: list[int] = []
        self._quantized = quantized or {}
        self.usable = any(len(names) > 1 for _, names in self._quantized.values())
        self.kept: set[Node] = set()
        if not self.usable:
            return
        for node in float_graph.graph.nodes:
            if node.op == "call_function" and node.target is not operator.getitem:
                self._by_chain[chain(node)] = node
        self._lengths = sorted({len(names) for names in self._by_chain})
        # Float nodes some quantised node descends from, of whatever op (a backend's
        # permute_copy for a transpose): the others the quantiser removed.
        self.kept = {m for m in map(self._ancestor, self._quantized) if m is not None}

    def _ancestor(self, name: str) -> Node | None:
        if name not in self._quantized:
            return None
        _, names = self._quantized[name]
        for length in self._lengths:
            if length <= len(names):
                match = self._by_chain.get(names[-length:])
                if match is not None:
                    return match
        return None

    def origin(self, name: str) -> Node | None:
        match = self._ancestor(name)
        # Decompositions (an edge dialect graph) descend from the op they replace
        # but compute something else: only the same op stands for it.
        if match is None or _alias(kind(match)) != _alias(self._quantized[name][0]):
            return None
        return match

    def viewed(self, name: str) -> Node | None:
        """The float node a quantised *view* descends from, when the view is of
        another op's value (QNN reshapes a linear's [1, 16, 64] to [16, 64] and
        back): its value is that node's, reshaped, if the shapes agree but for
        size-1 dimensions (checked where the value is taken)."""
        if name not in self._quantized or self._quantized[name][0] not in _VIEWS:
            return None
        return self._ancestor(name)
