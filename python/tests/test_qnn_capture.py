"""capture_from_qnn_debugger without the Qualcomm backend: a stand-in debugger holding
an edge program annotated the way QNN's passes annotate theirs (``quant_attrs``,
``axis_order``, a handle per node, getitem nodes sharing their producer's handle).
The real debugger is exercised by tests/e2e_qnn (ctest label e2e-qnn)."""

from __future__ import annotations

import operator
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from executorch.exir import to_edge

from gapscope_capture.capture import CaptureError, capture_from_qnn_debugger
from gapscope_capture.capture_format import read_capture


class _Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.conv(x))
        a, b = torch.split(y, 2, dim=1)
        return a + 1, b


def _qnn_like_debugger() -> SimpleNamespace:
    """An edge program whose nodes carry QNN's metadata, in a debugger-shaped object."""
    torch.manual_seed(0)
    inputs = (torch.randn(1, 3, 5, 5),)
    edge_ep = to_edge(torch.export.export(_Model().eval(), inputs)).exported_program()
    handle = 0
    for node in edge_ep.graph_module.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is operator.getitem:  # ResolveDebugHandle: getitem takes its source's handle
            node.meta["debug_handle"] = node.args[0].meta["debug_handle"]
            node.meta["quant_attrs"] = {
                "scale": 0.01 * (node.args[1] + 1),
                "zero_point": 128,
                "quant_min": 0,
                "quant_max": 255,
                "dtype": torch.uint8,
            }
            node.meta["axis_order"] = (0, 2, 3, 1)
            continue
        handle += 1
        node.meta["debug_handle"] = handle
        node.meta["quant_attrs"] = {
            "scale": 0.5 / handle,
            "zero_point": 3,
            "quant_min": 0,
            "quant_max": 255,
            "dtype": torch.uint8,
        }
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor) and value.dim() == 4:  # LayoutTransform's channels-last
            node.meta["axis_order"] = (0, 2, 3, 1)
    return SimpleNamespace(
        edge_ep=edge_ep,
        etrecord_file_path=None,
        sample_input=inputs,
        reference_graph_name="edge_after_transform/forward",
    )


def test_capture_records_quant_attrs_and_axis_order(tmp_path: Path) -> None:
    debugger = _qnn_like_debugger()
    result = capture_from_qnn_debugger(debugger)
    assert result.layout_recorded
    by_op = {record.ops[-1]: record for record in result.records}
    conv = next(r for name, r in by_op.items() if "convolution" in name)
    assert conv.axis_order == [0, 2, 3, 1]
    assert conv.quantization == [
        {"scheme": "per_tensor", "scale": 0.5 / conv.debug_handle[0], "zero_point": 3,
         "dtype": "uint8", "qmin": 0, "qmax": 255}
    ]
    split = next(r for name, r in by_op.items() if "split" in name)
    assert split.sequence and len(split.outputs) == 2
    # One entry per output, from the getitem nodes (QNN annotates those).
    assert [q["scale"] for q in split.quantization] == [0.01, 0.02]
    assert split.axis_order == [0, 2, 3, 1]
    add = next(r for name, r in by_op.items() if name.startswith("aten_add"))
    assert add.axis_order == [0, 2, 3, 1]

    result.write(tmp_path / "qnn.gscap.safetensors")
    back = read_capture(tmp_path / "qnn.gscap.safetensors")
    assert back.layout_recorded
    assert [r.quantization for r in back.records] == [r.quantization for r in result.records]


def test_records_of_another_node_keep_no_metadata() -> None:
    debugger = _qnn_like_debugger()
    result = capture_from_qnn_debugger(debugger)
    from gapscope_capture.qnn_capture import annotate_from_graph

    for record in result.records:
        record.ops[-1] = record.ops[-1] + "_elsewhere"
        record.quantization = None
        record.axis_order = None
    assert annotate_from_graph(result, debugger.edge_ep.graph_module) == 0
    assert all(r.quantization is None and r.axis_order is None for r in result.records)


def test_debugger_before_lowering_is_refused() -> None:
    with pytest.raises(CaptureError, match="after build_executorch_binary"):
        capture_from_qnn_debugger(SimpleNamespace(edge_ep=None, sample_input=(torch.zeros(1),)))
    debugger = _qnn_like_debugger()
    debugger.sample_input = None
    with pytest.raises(CaptureError, match="no sample_input"):
        capture_from_qnn_debugger(debugger)
