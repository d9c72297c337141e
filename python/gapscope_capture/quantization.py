"""Quantisation parameters of captured outputs, read off the reference graph.

A lowered backend may keep an intermediate tensor quantised while the reference
graph holds it in float; the capture records how to dequantise the runtime
tensor. Only static parameters are recorded: constants in the node arguments,
``get_attr`` tensors, or QNN's ``quant_attrs`` node metadata. Parameters that
are computed while the graph runs (dynamic quantisation) are left unknown.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Iterable

import torch
from torch.fx import GraphModule, Node

from gapscope_capture.capture_format import Quantization

_QUANTIZE_OPS = frozenset(
    {"quantized_decomposed::quantize_per_tensor", "quantized_decomposed::quantize_per_channel"}
)
_DEQUANTIZE_OPS = frozenset(
    {"quantized_decomposed::dequantize_per_tensor", "quantized_decomposed::dequantize_per_channel"}
)
# Integer types the format can name (docs/formats/aot-capture.md).
_DTYPE_NAMES = {
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.int16: "int16",
    torch.uint16: "uint16",
    torch.int32: "int32",
}
# QNN's node.meta keys (executorch.backends.qualcomm.utils.constants), spelled
# out so that the Qualcomm backend need not be importable.
_QNN_QUANT_ATTRS = "quant_attrs"
_QNN_AXIS_ORDER = "axis_order"


def output_quantization(
    node: Node, graph_module: GraphModule, num_outputs: int, sequence: bool
) -> list[Quantization | None]:
    """Quantisation of each output of ``node``, ``None`` where unknown.

    ``node`` is the node whose value the capture stored for its debug-handle
    key (the last one in graph order sharing the key). For a sequence output,
    element ``i`` is described by the ``getitem(node, i)`` nodes.

    For each value this inspects, in order:

    1. ``meta["quant_attrs"]`` (QNN: ``scale``/``zero_point`` or
       ``scales``/``zero_points``/``axis``, ``quant_min``, ``quant_max``, ``dtype``);
    2. users that are ``quantized_decomposed.quantize_per_tensor`` /
       ``quantize_per_channel`` (PT2E: the value is quantised right after);
    3. the node itself when it is a ``dequantize_per_tensor`` /
       ``dequantize_per_channel`` (PT2E: after debug-handle propagation an op
       shares its handle with its Q/DQ pair, so the stored value is the
       dequantised tensor and the DQ arguments say how it was quantised).
    """
    if not sequence:
        return [_value_quantization(node, graph_module)]
    result: list[Quantization | None] = []
    for index in range(num_outputs):
        candidates = [
            _value_quantization(item, graph_module) for item in _getitem_users(node, index)
        ]
        result.append(_single(candidates))
    return result


def output_axis_order(node: Node, sequence: bool) -> list[int] | None:
    """QNN's layout permutation (``meta["axis_order"]``) of the node's outputs.

    For a sequence without one on the node itself, the ``getitem`` users'
    common ``axis_order`` is used, as QNN annotates those for multi-output ops.
    """
    axis_order = node.meta.get(_QNN_AXIS_ORDER)
    if axis_order is None and sequence:
        orders = {
            tuple(user.meta[_QNN_AXIS_ORDER])
            for user in node.users
            if user.target is operator.getitem and user.meta.get(_QNN_AXIS_ORDER) is not None
        }
        axis_order = orders.pop() if len(orders) == 1 else None
    return None if axis_order is None else [int(axis) for axis in axis_order]


def _getitem_users(node: Node, index: int) -> Iterable[Node]:
    return (
        user
        for user in node.users
        if user.target is operator.getitem and len(user.args) > 1 and user.args[1] == index
    )


def _value_quantization(node: Node, graph_module: GraphModule) -> Quantization | None:
    attrs = node.meta.get(_QNN_QUANT_ATTRS)
    if attrs:
        return _from_qnn_attrs(attrs)
    consumers = [user for user in node.users if _schema_name(user) in _QUANTIZE_OPS]
    if consumers:
        return _single([_from_quant_node(user, graph_module) for user in consumers])
    if _schema_name(node) in _DEQUANTIZE_OPS:
        return _from_quant_node(node, graph_module)
    return None


def _single(candidates: list[Quantization | None]) -> Quantization | None:
    """The one quantisation all candidates agree on, else unknown."""
    distinct = {repr(c): c for c in candidates}
    return next(iter(distinct.values())) if len(distinct) == 1 else None


def _schema_name(node: Node) -> str | None:
    if node.op != "call_function":
        return None
    schema = getattr(node.target, "_schema", None)
    return None if schema is None else schema.name


def _from_quant_node(node: Node, graph_module: GraphModule) -> Quantization | None:
    """Parameters of a quantize/dequantize node, bound by the op schema's argument names."""
    schema = node.target._schema  # type: ignore[union-attr]
    args = {argument.name: value for argument, value in zip(schema.arguments, node.args)}
    args.update(node.kwargs)
    values = {name: _static_value(value, graph_module) for name, value in args.items()}
    if schema.name.endswith("_per_channel"):
        return _quantization(
            values.get("scales"),
            values.get("zero_points"),
            values.get("axis"),
            values.get("quant_min"),
            values.get("quant_max"),
            values.get("dtype"),
        )
    return _quantization(
        values.get("scale"),
        values.get("zero_point"),
        None,
        values.get("quant_min"),
        values.get("quant_max"),
        values.get("dtype"),
    )


def _from_qnn_attrs(attrs: dict[str, Any]) -> Quantization | None:
    if "scales" in attrs:
        return _quantization(
            _plain(attrs["scales"]),
            _plain(attrs.get("zero_points")),
            _plain(attrs.get("axis")),
            _plain(attrs.get("quant_min")),
            _plain(attrs.get("quant_max")),
            attrs.get("dtype"),
        )
    return _quantization(
        _plain(attrs.get("scale")),
        _plain(attrs.get("zero_point")),
        None,
        _plain(attrs.get("quant_min")),
        _plain(attrs.get("quant_max")),
        attrs.get("dtype"),
    )


def _quantization(
    scale: Any, zero_point: Any, axis: Any, qmin: Any, qmax: Any, dtype: Any
) -> Quantization | None:
    """Build a format entry, or ``None`` if a parameter is missing or not static."""
    dtype_name = _DTYPE_NAMES.get(dtype)
    if dtype_name is None or not isinstance(qmin, int) or not isinstance(qmax, int):
        return None
    if axis is None:
        scale, zero_point = _scalar(scale), _scalar(zero_point)
        if not isinstance(scale, (int, float)) or not isinstance(zero_point, (int, float)):
            return None
        return {
            "scheme": "per_tensor",
            "scale": float(scale),
            "zero_point": int(zero_point),
            "dtype": dtype_name,
            "qmin": qmin,
            "qmax": qmax,
        }
    if not isinstance(axis, int) or not isinstance(scale, list) or not isinstance(zero_point, list):
        return None
    if len(scale) != len(zero_point):
        return None
    return {
        "scheme": "per_channel",
        "scale": [float(s) for s in scale],
        "zero_point": [int(z) for z in zero_point],
        "axis": axis,
        "dtype": dtype_name,
        "qmin": qmin,
        "qmax": qmax,
    }


def _scalar(value: Any) -> Any:
    """A one-element list (a per-tensor parameter stored as a 1-D tensor) as its element."""
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def _static_value(value: Any, graph_module: GraphModule) -> Any:
    """A node argument as a plain Python value; ``None`` if only known at run time."""
    if isinstance(value, Node):
        if value.op != "get_attr":
            return None
        value = functools.reduce(getattr, str(value.target).split("."), graph_module)
    return _plain(value)


def _plain(value: Any) -> Any:
    """Tensors to scalars (one element) or lists; everything else unchanged."""
    if isinstance(value, torch.Tensor):
        return value.item() if value.dim() == 0 else value.tolist()
    return value
