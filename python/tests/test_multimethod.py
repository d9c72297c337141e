"""Capturing one method of a multi-method program (an LLM's prefill and forward)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from executorch.exir import to_edge
from torch.export import export

from gapscope_capture.capture import CaptureError, capture_from_etrecord


class Scale(torch.nn.Module):
    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * self.factor).sum(dim=-1)


@pytest.fixture(scope="module")
def two_methods(tmp_path_factory: pytest.TempPathFactory) -> Path:
    edge = to_edge(
        {
            "prefill": export(Scale(2.0), (torch.randn(4, 8),)),
            "forward": export(Scale(3.0), (torch.randn(1, 8),)),
        },
        generate_etrecord=True,
    )
    path = tmp_path_factory.mktemp("mm") / "etrecord.bin"
    edge.to_executorch().get_etrecord().save(str(path))
    return path


def test_each_method_is_captured_from_its_own_edge_program(two_methods: Path) -> None:
    x = torch.ones(4, 8)
    prefill = capture_from_etrecord(two_methods, inputs=[x], method="prefill")
    assert prefill.method == "prefill"
    assert prefill.reference_graph == "edge_dialect_exported_program"
    # prefill's program scales by 2: the sum of 8 twos, for each of the 4 rows.
    assert torch.equal(prefill.reference_outputs[0], torch.full((4,), 16.0))
    forward = capture_from_etrecord(two_methods, inputs=[torch.ones(1, 8)], method="forward")
    assert forward.method == "forward"
    assert torch.equal(forward.reference_outputs[0], torch.full((1,), 24.0))


def test_a_method_the_program_lacks_is_refused_with_its_methods(two_methods: Path) -> None:
    with pytest.raises(CaptureError, match="no method 'decode'; its methods: 'forward', 'prefill'"):
        capture_from_etrecord(two_methods, inputs=[torch.ones(1, 8)], method="decode")


def test_without_inputs_a_method_runs_on_its_export_example(two_methods: Path) -> None:
    capture = capture_from_etrecord(two_methods, method="prefill")
    assert tuple(capture.inputs[0].shape) == (4, 8)
