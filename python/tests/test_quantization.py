"""Quantisation parameters read off hand-built graphs: PT2E Q/DQ nodes and QNN metadata."""

from __future__ import annotations

import operator

import torch
import torchao.quantization.pt2e  # noqa: F401  registers torch.ops.quantized_decomposed
from torch.fx import Graph, GraphModule

from gapscope_capture.quantization import output_axis_order, output_quantization

qd = torch.ops.quantized_decomposed


def _module(graph: Graph) -> GraphModule:
    root = torch.nn.Module()
    root.register_buffer("scales", torch.tensor([0.5, 0.25]))
    root.register_buffer("zero_points", torch.tensor([0, 1], dtype=torch.int32))
    return GraphModule(root, graph)


def test_per_channel_quantize_consumer_with_get_attr_parameters() -> None:
    graph = Graph()
    x = graph.placeholder("x")
    relu = graph.call_function(torch.ops.aten.relu.default, (x,))
    scales, zero_points = graph.get_attr("scales"), graph.get_attr("zero_points")
    quantized = graph.call_function(
        qd.quantize_per_channel.default, (relu, scales, zero_points, 1, -127, 127, torch.int8)
    )
    graph.output(quantized)
    module = _module(graph)
    assert output_quantization(relu, module, 1, sequence=False) == [
        {
            "scheme": "per_channel",
            "scale": [0.5, 0.25],
            "zero_point": [0, 1],
            "axis": 1,
            "dtype": "int8",
            "qmin": -127,
            "qmax": 127,
        }
    ]


def test_dequantize_node_describes_its_own_output() -> None:
    graph = Graph()
    x = graph.placeholder("x")
    dequantized = graph.call_function(
        qd.dequantize_per_tensor.default,
        (x,),
        {"scale": 0.5, "zero_point": 3, "quant_min": 0, "quant_max": 255, "dtype": torch.uint8},
    )
    graph.output(dequantized)
    assert output_quantization(dequantized, _module(graph), 1, sequence=False) == [
        {"scheme": "per_tensor", "scale": 0.5, "zero_point": 3, "dtype": "uint8", "qmin": 0, "qmax": 255}
    ]


def test_parameters_computed_at_run_time_are_unknown() -> None:
    graph = Graph()
    x = graph.placeholder("x")
    scale = graph.call_function(torch.ops.aten.amax.default, (x,))
    zero_point = graph.get_attr("zero_points")
    quantized = graph.call_function(
        qd.quantize_per_tensor.tensor, (x, scale, zero_point, -128, 127, torch.int8)
    )
    graph.output(quantized)
    assert output_quantization(x, _module(graph), 1, sequence=False) == [None]


def test_qnn_quant_attrs_and_axis_order_of_a_multi_output_node() -> None:
    graph = Graph()
    x = graph.placeholder("x")
    topk = graph.call_function(torch.ops.aten.topk.default, (x, 2))
    values = graph.call_function(operator.getitem, (topk, 0))
    indices = graph.call_function(operator.getitem, (topk, 1))
    graph.output((values, indices))
    values.meta["quant_attrs"] = {
        "scale": torch.tensor(0.25),
        "zero_point": 2,
        "quant_min": -32768,
        "quant_max": 32767,
        "dtype": torch.int16,
    }
    for item in (values, indices):
        item.meta["axis_order"] = (0, 2, 3, 1)
    module = _module(graph)
    assert output_quantization(topk, module, 2, sequence=True) == [
        {"scheme": "per_tensor", "scale": 0.25, "zero_point": 2, "dtype": "int16", "qmin": -32768, "qmax": 32767},
        None,
    ]
    assert output_axis_order(topk, sequence=True) == [0, 2, 3, 1]
    assert output_axis_order(x, sequence=False) is None


def test_unnamed_integer_type_is_unknown() -> None:
    graph = Graph()
    x = graph.placeholder("x")
    x.meta["quant_attrs"] = {
        "scales": [0.1],
        "zero_points": [0],
        "axis": 0,
        "quant_min": 0,
        "quant_max": 15,
        "dtype": torch.uint4,
    }
    graph.output(x)
    assert output_quantization(x, _module(graph), 1, sequence=False) == [None]
