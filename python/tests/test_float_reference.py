"""The float reference of a quantised program: the float model, keyed like the int8 capture."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pytest
import torch
from torch.export import export

from gapscope_capture.capture import (
    CaptureError,
    CaptureResult,
    capture_float_reference,
    capture_from_etrecord,
)
from gapscope_capture.capture_format import CaptureRecord, read_capture
from gapscope_zoo.demo import lower, seeded_model_and_inputs

# The float node each int8 record of the demo is matched with.
DEMO_MATCHES = ["conv2d", "relu", "reshape", "layer_norm", "linear", "softmax", "topk"]


def _float_node(record: CaptureRecord) -> str:
    return [op for op in record.ops if op in DEMO_MATCHES][-1]


def _max_abs(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a.double() - b.double()).abs().max().item()


def _same_records(a: list[CaptureRecord], b: list[CaptureRecord]) -> bool:
    return [(r.debug_handle, r.ops, r.quantization, r.sequence) for r in a] == [
        (r.debug_handle, r.ops, r.quantization, r.sequence) for r in b
    ] and all(
        torch.equal(x, y) for r, s in zip(a, b) for x, y in zip(r.outputs, s.outputs, strict=True)
    )


@pytest.fixture(scope="module")
def int8_session(tmp_path_factory: pytest.TempPathFactory):
    """The demo model, its float program, its int8 lowering and saved ETRecord."""
    model, inputs = seeded_model_and_inputs()
    float_program = export(model, inputs)
    program = lower(model, inputs, "int8", exported=float_program)
    path = tmp_path_factory.mktemp("int8") / "etrecord.bin"
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(path))
    return model, inputs, float_program, program, path


def test_demo_float_capture_uses_the_int8_keys(demo_dir: Path) -> None:
    directory = demo_dir / "int8"
    quantised = read_capture(directory / "capture.gscap.safetensors")
    floating = read_capture(directory / "capture_float.gscap.safetensors")
    by_handle = {record.debug_handle: record for record in quantised.records}
    handles = [record.debug_handle for record in floating.records]
    assert set(handles) <= set(by_handle)
    assert handles == [r.debug_handle for r in quantised.records if r.debug_handle in set(handles)]
    assert [_float_node(record) for record in floating.records] == DEMO_MATCHES
    for record in floating.records:
        other = by_handle[record.debug_handle]
        assert (record.ops, record.stack_traces, record.quantization, record.axis_order) == (
            other.ops,
            other.stack_traces,
            other.quantization,
            other.axis_order,
        )
        assert record.sequence == other.sequence
        assert [t.shape for t in record.outputs] == [t.shape for t in other.outputs]
    # Left out: only Q/DQ nodes (dequantised weights, the quantised input, a requantisation).
    for handle in set(by_handle) - set(handles):
        assert all("quantize_per_tensor" in op for op in by_handle[handle].ops)
    assert any(r.quantization for r in floating.records)

    assert floating.reference_graph == (
        "float_exported_program (handles by node provenance from exported_program)"
    )
    assert floating.etrecord_sha256 == quantised.etrecord_sha256
    etrecord_bytes = (directory / "etrecord.bin").read_bytes()
    assert floating.etrecord_sha256 == hashlib.sha256(etrecord_bytes).hexdigest()
    assert floating.method == "forward"
    assert all(torch.equal(a, b) for a, b in zip(floating.inputs, quantised.inputs, strict=True))


def test_demo_float_capture_shows_the_quantisation_error(demo_dir: Path) -> None:
    directory = demo_dir / "int8"
    quantised = read_capture(directory / "capture.gscap.safetensors")
    floating = read_capture(directory / "capture_float.gscap.safetensors")
    by_handle = {record.debug_handle: record for record in quantised.records}
    for record in floating.records:
        # The first output is a float tensor everywhere (topk's second holds indices).
        error = _max_abs(record.outputs[0], by_handle[record.debug_handle].outputs[0])
        assert 1e-4 < error < 0.5, (record.ops, error)
    assert _max_abs(floating.reference_outputs[0], quantised.reference_outputs[0]) > 1e-4


def test_demo_float_capture_is_the_float_model(demo_dir: Path) -> None:
    model, (x,) = seeded_model_and_inputs()
    floating = read_capture(demo_dir / "int8" / "capture_float.gscap.safetensors")
    assert torch.equal(floating.inputs[0], x)
    with torch.no_grad():
        expected_outputs = model(x)
        conv2d = model.conv(x)
        relu = torch.relu(conv2d)
        reshape = relu.reshape(1, 4, 16)
        layer_norm = model.norm(reshape)
        linear = model.fc(layer_norm)
        softmax = torch.softmax(linear, dim=-1)
        topk = list(torch.topk(softmax, 3, dim=-1))
    assert all(
        torch.equal(a, b) for a, b in zip(floating.reference_outputs, expected_outputs, strict=True)
    )
    expected = {
        "conv2d": [conv2d],
        "relu": [relu],
        "reshape": [reshape],
        "layer_norm": [layer_norm],
        "linear": [linear],
        "softmax": [softmax],
        "topk": topk,
    }
    for record in floating.records:
        values = expected[_float_node(record)]
        assert record.sequence == (len(values) > 1)
        for got, want in zip(record.outputs, values, strict=True):
            torch.testing.assert_close(got, want, rtol=0, atol=1e-6)


def test_argument_forms_agree(int8_session) -> None:
    model, inputs, float_program, program, etrecord_path = int8_session
    quantised = capture_from_etrecord(etrecord_path)
    from_capture = capture_float_reference(float_program, quantised)
    from_path = capture_float_reference(float_program, etrecord_path)
    from_program = capture_float_reference(float_program.module(), program, inputs)
    with_inputs = capture_float_reference(float_program, quantised, list(inputs))
    for other in (from_path, from_program, with_inputs):
        assert _same_records(from_capture.records, other.records)
    assert from_capture.etrecord_sha256 == quantised.etrecord_sha256 is not None
    assert from_path.reference_graph == (
        "float_exported_program (handles by node provenance from exported_program)"
    )
    # capture_from_program names no reference graph: it lives in memory only.
    assert from_program.reference_graph == (
        "float_exported_program (handles by node provenance from an in-memory program)"
    )
    # Quantisation (prepare_pt2e on float_program.module()) left the float program as it was.
    expected = model(*inputs)
    assert all(torch.equal(a, b) for a, b in zip(float_program.module()(*inputs), expected))
    assert all(torch.equal(a, b) for a, b in zip(from_capture.reference_outputs, expected))


def test_user_errors(int8_session, tmp_path: Path) -> None:
    _, inputs, float_program, _, etrecord_path = int8_session
    # A capture read from a file has no provenance: the edge dialect's names
    # (aten_convolution_default) match no float node.
    edge = capture_from_etrecord(etrecord_path, reference_graph="edge_dialect_exported_program")
    edge_file = tmp_path / "edge.gscap.safetensors"
    edge.write(edge_file)
    with pytest.raises(CaptureError, match="no op of the quantised capture names a node of the float"):
        capture_float_reference(float_program, read_capture(edge_file))
    quantised = capture_from_etrecord(etrecord_path)
    with pytest.raises(CaptureError, match="inputs differ from those the quantised capture ran on"):
        capture_float_reference(float_program, quantised, [inputs[0] + 1])
    quantised.inputs = None
    with pytest.raises(CaptureError, match="holds no inputs"):
        capture_float_reference(float_program, quantised)
    with pytest.raises(CaptureError, match="running the float program on the inputs failed"):
        capture_float_reference(float_program, quantised, [torch.zeros(2, 2)])
    with pytest.raises(CaptureError, match="must be an ExportedProgram or a GraphModule"):
        capture_float_reference(torch.nn.Identity(), quantised, inputs)


def test_edge_dialect_capture_is_matched_by_provenance(int8_session) -> None:
    """Issue 54: by provenance, any graph of the quantised program keys a float
    reference (QNN's debugger captures edge_after_transform): the edge dialect's
    ops (aten.linear.default as an EdgeOpOverload, view_copy for view) are the
    float model's. Its handles are the ATen graph's (propagated back), so each
    float value equals the one keyed through the ATen capture."""
    _, _, float_program, _, etrecord_path = int8_session
    edge = capture_from_etrecord(etrecord_path, reference_graph="edge_dialect_exported_program")
    by_edge = capture_float_reference(float_program, edge)
    by_aten = {r.debug_handle: r for r in capture_float_reference(float_program, etrecord_path).records}
    compared = 0
    for record in by_edge.records:
        twin = by_aten.get(record.debug_handle)
        if twin is None or record.outputs[0] is None or twin.outputs[0] is None:
            continue
        assert torch.equal(record.outputs[0], twin.outputs[0]), record.ops
        compared += 1
    assert compared >= len(DEMO_MATCHES) - 2  # most ops; a fold or tuple may differ by side
    assert "provenance from edge_dialect_exported_program" in by_edge.reference_graph


def test_mismatched_outputs_are_written_without_a_value(
    int8_session, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, inputs, float_program, _, _ = int8_session
    # The CLI stops the package logger from propagating; caplog listens on the root logger.
    monkeypatch.setattr(logging.getLogger("gapscope_capture"), "propagate", True)
    good = CaptureRecord((2,), ["relu"], [torch.zeros(1, 4, 4, 4)])
    wrong_shape = CaptureRecord((1,), ["conv2d"], [torch.zeros(2)])
    wrong_count = CaptureRecord((3,), ["topk"], [torch.zeros(1, 4, 3)])
    fake = CaptureResult(
        [wrong_shape, good, wrong_count], list(inputs), [], "exported_program", "forward", None
    )
    with caplog.at_level(logging.WARNING, logger="gapscope_capture.float_reference"):
        result = capture_float_reference(float_program, fake)
    # Kept without a value, so that Gapscope shows their rows invalid, never a number.
    assert [r.debug_handle for r in result.records] == [(1,), (2,), (3,)]
    assert [r.outputs[0] is None for r in result.records] == [True, False, True]
    assert "float node 'conv2d' does not match" in caplog.text
    assert "shape [1, 4, 4, 4] against [2]" in caplog.text
    assert "float node 'topk' does not match" in caplog.text
    fake.records = [wrong_shape]
    with pytest.raises(CaptureError, match="no float node output matches"):
        capture_float_reference(float_program, fake)


def test_half_program_has_an_fp32_reference(tmp_path: Path) -> None:
    """Issue 54: a ``model.half()`` program's capture holds float16 values; the
    model before ``.half()`` gives its fp32 reference under the same handles,
    its float16 inputs given to it as float32."""
    from executorch.exir import to_edge_transform_and_lower

    class Head(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = torch.nn.Linear(16, 32)
            self.l2 = torch.nn.Linear(32, 8)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.l2(torch.relu(self.l1(x))).softmax(-1)

    torch.manual_seed(0)
    model = Head().eval()
    x = torch.randn(2, 16)
    fp32_program = export(model, (x,))
    half_model = Head().eval()
    half_model.load_state_dict(model.state_dict())
    half_model = half_model.half()
    half_inputs = (x.half(),)
    edge = to_edge_transform_and_lower(export(half_model, half_inputs), generate_etrecord=True)
    etrecord = edge.to_executorch().get_etrecord()
    etrecord.update_representative_inputs(half_inputs)
    path = tmp_path / "etrecord.bin"
    etrecord.save(str(path))

    half = capture_from_etrecord(path)
    assert all(r.outputs[0].dtype == torch.float16 for r in half.records)
    reference = capture_float_reference(fp32_program, half)
    assert [r.debug_handle for r in reference.records] == [r.debug_handle for r in half.records]
    by_op = {r.ops[-1]: r.outputs[0] for r in reference.records}
    assert all(value.dtype == torch.float32 for value in by_op.values())
    with torch.no_grad():
        expected = model.l1(x.half().float())  # the half input, in float32
    assert torch.equal(by_op["linear"], expected)
    for record in half.records:  # float16 rounding apart, the same values
        assert torch.allclose(by_op[record.ops[-1]], record.outputs[0].float(), atol=2e-2)
