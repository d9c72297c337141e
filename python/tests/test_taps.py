"""ExecuTorch's intermediate-output tap, captured (issue 58): the specs' output
indices as the runtime returns them, specs of another program refused, specs
saved and read back, and bad spec files named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

pytest.importorskip("executorch.devtools.intermediate_output_tap")

from executorch.devtools.intermediate_output_tap import (  # noqa: E402
    FULL_TENSOR,
    STATS,
    select_all_call_function,
    select_by_op_type,
)
from torch.export import export  # noqa: E402
from torch.utils._pytree import tree_leaves  # noqa: E402

from gapscope_capture.etrecord_capture import CaptureError  # noqa: E402
from gapscope_capture.taps import load_tap_specs, save_tap_specs, tap, tap_records  # noqa: E402


class Counting(torch.nn.Module):
    """A linear whose call also bumps a buffer in place: a BUFFER_MUTATION output."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls.add_(1)
        return torch.relu(self.fc(x))


def _tapped(rules):
    torch.manual_seed(0)
    model = Counting().eval()
    x = torch.randn(2, 4)
    program = export(model, (x,)).run_decompositions({})
    program, specs = tap(program, rules)
    return model, x, program, specs


def test_output_indices_count_the_outputs_the_runtime_returns() -> None:
    model, x, program, specs = _tapped([(select_by_op_type("aten.linear.default"), FULL_TENSOR)])
    assert len(specs) == 1
    outputs = tree_leaves(program.module()(x))
    # The buffer mutation is not returned: the model's output, then the tap.
    # (ExecuTorch 1.5.1's own spec says 2 here, counting the mutation.)
    assert specs[0].output_index == 1
    assert len(outputs) == 2
    torch.testing.assert_close(outputs[specs[0].output_index], model.fc(x))


def test_specs_of_another_program_are_refused() -> None:
    _, _, program, specs = _tapped([(select_all_call_function(), STATS)])
    records = tap_records(program, specs)
    assert [r.output_index for r in records] == [s.output_index for s in specs]
    assert all(r.reducer == "STATS" for r in records)
    moved = [type(specs[0])(**{**specs[0].__dict__, "output_index": 0})]
    with pytest.raises(CaptureError, match="program output 0 is .*not a tap"):
        tap_records(program, moved)
    beyond = [type(specs[0])(**{**specs[0].__dict__, "output_index": 99})]
    with pytest.raises(CaptureError, match="the program returns"):
        tap_records(program, beyond)
    other = [type(specs[0])(**{**specs[0].__dict__, "reducer_name": "FULL_TENSOR"})]
    with pytest.raises(CaptureError, match="reduced by 'STATS'"):
        tap_records(program, other)


def test_specs_round_trip_and_bad_files_are_named(tmp_path: Path) -> None:
    _, _, _, specs = _tapped([(select_all_call_function(), STATS)])
    path = tmp_path / "taps.json"
    save_tap_specs(specs, path)
    assert load_tap_specs(path) == specs
    path.write_text("{}")
    with pytest.raises(CaptureError, match="a JSON list"):
        load_tap_specs(path)
    path.write_text(json.dumps([{"node_name": "x"}]))
    with pytest.raises(CaptureError, match="spec 0"):
        load_tap_specs(path)
    path.write_text("[")
    with pytest.raises(CaptureError, match="cannot read tap specs"):
        load_tap_specs(path)


def test_tap_nodes_get_values_so_an_untransformed_program_can_be_saved() -> None:
    # ExecuTorch 1.5.1's tap nodes carry no meta["val"]; an ETRecord of a program
    # lowered without exporting it again then fails to serialise.
    _, x, program, specs = _tapped(
        [(select_by_op_type("aten.linear.default"), FULL_TENSOR), (select_all_call_function(), STATS)]
    )
    taps = [n for n in program.graph.nodes if "executorch_devtools.tap.Tensor" in str(n.target)]
    assert len(taps) == len(specs) >= 2
    outputs = tree_leaves(program.module()(x))
    for node, spec in zip(taps, specs):
        assert "val" in node.meta
        assert tuple(node.meta["val"].shape) == tuple(outputs[spec.output_index].shape)


def test_saved_outputs_are_named_as_gapscope_reads_them(tmp_path: Path) -> None:
    from safetensors.torch import load_file

    from gapscope_capture.taps import save_outputs

    path = tmp_path / "outputs.safetensors"
    save_outputs([[torch.ones(2), torch.zeros(3)], [torch.ones(2) * 2, torch.zeros(3)]], path)
    saved = load_file(str(path))
    assert sorted(saved) == ["outputs/0/0", "outputs/0/1", "outputs/1/0", "outputs/1/1"]
    torch.testing.assert_close(saved["outputs/1/0"], torch.ones(2) * 2)
    with pytest.raises(CaptureError, match="execution 0, output 1: not a tensor"):
        save_outputs([[torch.ones(2), 3]], tmp_path / "bad.safetensors")


class Splitting(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = x.split(2, dim=-1)
        return a * b


def test_a_node_returning_several_tensors_is_never_tapped() -> None:
    # ExecuTorch's tap op takes one tensor: a tapped split fails when it runs.
    x = torch.randn(3, 4)
    program, specs = tap(export(Splitting(), (x,)), [(select_all_call_function(), STATS)])
    assert specs and all("split" not in s.node_name for s in specs)
    assert any(s.node_name == "mul" for s in specs)
    tree_leaves(program.module()(x))  # runs
