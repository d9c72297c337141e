"""Capturing in-memory programs, and that the in-memory and ETRecord paths agree."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from executorch.exir import to_edge

from gapscope_capture.capture import CaptureError, capture_from_etrecord, capture_from_program
from gapscope_zoo.demo import lower, seeded_model_and_inputs


def test_edge_program_without_etrecord() -> None:
    model, inputs = seeded_model_and_inputs()
    edge = to_edge(torch.export.export(model, inputs))
    result = capture_from_program(edge, inputs)
    assert result.reference_graph is None and result.etrecord_sha256 is None
    assert result.method == "forward"
    handles = [record.debug_handle for record in result.records]
    assert handles == sorted(handles) and len(set(handles)) == len(handles)
    expected = model(*inputs)
    torch.testing.assert_close(result.reference_outputs[0], expected[0])
    assert torch.equal(result.reference_outputs[1], expected[1])

    with pytest.raises(CaptureError, match="pass inputs"):
        capture_from_program(edge)
    with pytest.raises(CaptureError, match="has no ETRecord"):
        capture_from_program(edge, inputs, reference_graph="exported_program")
    with pytest.raises(CaptureError, match="running the reference graph on the inputs failed"):
        capture_from_program(edge, [torch.zeros(2, 2)])
    with pytest.raises(CaptureError, match="no node of the reference graph has a debug handle"):
        capture_from_program(torch.export.export(model, inputs), inputs)


def test_in_memory_int8_program_agrees_with_its_saved_etrecord(tmp_path: Path) -> None:
    model, inputs = seeded_model_and_inputs()
    program = lower(model, inputs, "int8")
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(tmp_path / "etrecord.bin"))

    from_file = capture_from_etrecord(tmp_path / "etrecord.bin")
    in_memory = capture_from_program(program)
    assert in_memory.reference_graph is None
    assert [r.debug_handle for r in in_memory.records] == [r.debug_handle for r in from_file.records]
    assert [r.quantization for r in in_memory.records] == [r.quantization for r in from_file.records]
    assert any(r.quantization for r in in_memory.records)
    assert from_file.fill_quantization(in_memory) == 0


class _Counter(torch.nn.Module):
    """Updates a buffer each step, as a KV cache or a step counter does."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.count.add_(1.0)
        return x * self.count, self.count * 2.0


def test_reference_outputs_are_the_captured_step_of_a_stateful_model() -> None:
    with torch.no_grad():  # ExecuTorch lowers in-place buffer updates only so
        edge = to_edge(torch.export.export(_Counter(), (torch.ones(3),)))
    result = capture_from_program(edge, [torch.ones(3)])
    # One step from count 0: count 1. Outputs of a second run would say 2 and 4.
    assert torch.equal(result.reference_outputs[0], torch.ones(3))
    assert torch.equal(result.reference_outputs[1], torch.tensor([2.0]))


def test_a_back_propagation_assertion_falls_back_to_the_edge_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """ExecuTorch's back-propagation asserts on some ETRecords (graph ids are Python
    ids, which the export can reuse); the capture falls back instead of crashing, and
    says why, as for a back-propagation that returns False."""
    from gapscope_capture import etrecord_capture as capture_module

    def asserts(*_args: object) -> bool:
        raise AssertionError

    model, inputs = seeded_model_and_inputs()
    program = lower(model, inputs, "fp32")
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(tmp_path / "etrecord.bin"))
    directory = tmp_path
    assert capture_module.capture_from_etrecord(directory / "etrecord.bin").reference_graph == "exported_program"
    from gapscope_capture import reference_graph

    monkeypatch.setattr(reference_graph, "propagate_back_debug_handle", asserts)
    with caplog.at_level("WARNING"):
        result = capture_module.capture_from_etrecord(directory / "etrecord.bin")
    assert result.reference_graph == "edge_dialect_exported_program"
    assert "asserted" in caplog.text
    with pytest.raises(capture_module.CaptureError, match="asserted"):
        capture_module.capture_from_etrecord(directory / "etrecord.bin", reference_graph="exported_program")


def test_etrecord_entries_digest_is_the_table_of_contents(tmp_path: Path) -> None:
    """The text hashed is the one Gapscope hashes (tests/core/etrecord_tests.cpp pins the same)."""
    import hashlib
    import zipfile

    from gapscope_capture.etrecord_digest import etrecord_entries_sha256

    entries = {"b/graph": b"xyz", "a": b"hello", "ETRECORD_V0": b""}

    def write(path: Path, order: list[str], compression: int, when: tuple[int, ...]) -> Path:
        with zipfile.ZipFile(path, "w", compression=compression) as archive:
            for name in order:
                archive.writestr(zipfile.ZipInfo(name, date_time=when), entries[name])
        return path

    expected = hashlib.sha256(
        b"0 00000000 11 ETRECORD_V0\n5 3610a686 1 a\n3 %08x 7 b/graph\n" % zipfile.crc32(b"xyz")
    ).hexdigest()
    first = write(tmp_path / "one.zip", ["b/graph", "a", "ETRECORD_V0"], zipfile.ZIP_STORED, (2020, 1, 1, 0, 0, 0))
    again = write(tmp_path / "two.zip", ["ETRECORD_V0", "a", "b/graph"], zipfile.ZIP_DEFLATED, (2026, 12, 3, 1, 2, 4))
    assert etrecord_entries_sha256(first) == expected
    assert etrecord_entries_sha256(again) == expected  # other order, compression and timestamps
    entries["b/graph"] = b"xyw"
    changed = write(tmp_path / "three.zip", ["a", "b/graph", "ETRECORD_V0"], zipfile.ZIP_STORED, (2020, 1, 1, 0, 0, 0))
    assert etrecord_entries_sha256(changed) != expected


class _DynamicReshape(torch.nn.Module):
    """A linear whose output is reshaped by the input's dynamic length: the edge
    program keeps a ``sym_size`` node that ``run_decompositions`` re-created."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.lin(x).reshape(1, x.shape[1] * 8), -1)


def test_dynamic_shapes_keep_the_aten_reference_graph(tmp_path: Path) -> None:
    """Issue 54: with a dynamic dimension (a static-cache LLM's sequence length),
    ExecuTorch's back-propagation fails on one symbolic-size node and the ATen graph
    (which the float reference needs) was refused. Asked for by name, it is used."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.devtools.etrecord import parse_etrecord
    from executorch.devtools.inspector._inspector_utils import propagate_back_debug_handle
    from executorch.exir import to_edge_transform_and_lower
    from torch.export import Dim, export

    from gapscope_capture.capture import EDGE_DIALECT_PROGRAM, EXPORTED_PROGRAM

    torch.manual_seed(0)
    model = _DynamicReshape().eval()
    x = torch.randn(1, 4, 8)
    exported = export(model, (x,), dynamic_shapes=({1: Dim("seq", min=1, max=16)},))
    edge = to_edge_transform_and_lower(
        exported, partitioner=[XnnpackPartitioner()], generate_etrecord=True
    )
    etrecord = edge.to_executorch().get_etrecord()
    etrecord.update_representative_inputs((x,))
    path = tmp_path / "etrecord.bin"
    etrecord.save(str(path))

    parsed = parse_etrecord(str(path))
    assert not propagate_back_debug_handle(  # ExecuTorch's own answer, pinned
        parsed.exported_program, parsed.export_graph_id, parsed.edge_dialect_program
    )
    # The default stays ExecuTorch's rule (its Inspector's numbers are of the edge program).
    assert capture_from_etrecord(path).reference_graph == EDGE_DIALECT_PROGRAM
    aten = capture_from_etrecord(path, reference_graph=EXPORTED_PROGRAM)
    assert aten.reference_graph == EXPORTED_PROGRAM
    with torch.no_grad():
        linear = model.lin(x)
        expected = model(x)
    values = [r.outputs[0] for r in aten.records if len(r.outputs) == 1]
    assert any(v.shape == linear.shape and torch.allclose(v, linear) for v in values)
    assert torch.allclose(aten.records[-1].outputs[0], expected)
