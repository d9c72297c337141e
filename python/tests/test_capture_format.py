"""Round trips and refusals of the AOT capture file format (docs/formats/aot-capture.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from gapscope_capture.capture_format import (
    FORMAT_VERSION,
    METADATA_KEY,
    CaptureFormatError,
    CaptureRecord,
    TapRecord,
    read_capture,
    read_inputs,
    write_capture,
)

PER_TENSOR = {
    "scheme": "per_tensor",
    "scale": 0.0123,
    "zero_point": -3,
    "dtype": "int8",
    "qmin": -128,
    "qmax": 127,
}


def _document(path: Path) -> dict:
    with safe_open(str(path), framework="pt") as handle:
        return json.loads(handle.metadata()[METADATA_KEY])


def _tensor_names(path: Path) -> set[str]:
    with safe_open(str(path), framework="pt") as handle:
        return set(handle.keys())


def _assert_same(actual, expected) -> None:
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor)
        assert actual.dtype == expected.dtype
        assert actual.shape == expected.shape
        assert torch.equal(actual, expected.contiguous())
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, list) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _assert_same(a, e)
    elif isinstance(expected, float) and math.isnan(expected):
        assert isinstance(actual, float) and math.isnan(actual)
    else:
        assert type(actual) is type(expected) and actual == expected


@pytest.fixture
def records() -> list[CaptureRecord]:
    values = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    return [
        CaptureRecord.from_intermediate_output(
            (3,), values, ["conv2d"], {"conv2d": 'File "model.py", line 12, in forward'}
        ),
        CaptureRecord.from_intermediate_output(
            (4, 5),
            [torch.tensor([[0.5, 0.25]]), torch.tensor([[1, 0]], dtype=torch.int64)],
            ["topk", "other"],
            {"topk": None, "other": None},
        ),
        CaptureRecord.from_intermediate_output((6,), 7, ["sym_size"]),
        CaptureRecord((7,), ["scalars"], [1.5, math.nan, math.inf, -math.inf, True, None], sequence=True),
        CaptureRecord((8,), ["mask"], [torch.tensor([True, False, True])]),
        CaptureRecord((9,), ["zero_dim"], [torch.tensor(2.5, dtype=torch.float64)]),
        CaptureRecord((10,), ["empty"], [torch.empty(0, 3, dtype=torch.int32)]),
        CaptureRecord(
            (11,),
            ["nested"],
            [[torch.tensor([1.0]), [None, 2, [torch.tensor([[7]], dtype=torch.int8)]]], False],
            sequence=True,
        ),
        CaptureRecord((12,), ["transposed"], [values.t()]),  # non-contiguous view
        CaptureRecord(
            (13,),
            ["half_types"],
            [
                torch.tensor([1.0, 2.0], dtype=torch.bfloat16),
                torch.tensor([1.0], dtype=torch.float16),
                torch.tensor([65535], dtype=torch.uint16),
            ],
            sequence=True,
        ),
        CaptureRecord(
            (14,), ["quantised"], [values], quantization=[PER_TENSOR], axis_order=[0, 1]
        ),
    ]


def test_round_trip_keeps_every_value(tmp_path: Path, records: list[CaptureRecord]) -> None:
    path = tmp_path / "c.gscap.safetensors"
    inputs = [torch.randn(1, 3, 4, 4), 3]
    reference_outputs = [torch.ones(2), inputs[0]]  # an output aliasing an input
    write_capture(
        path,
        records,
        inputs=inputs,
        reference_outputs=reference_outputs,
        reference_graph="exported_program",
        etrecord_sha256="ab" * 32,
        etrecord_entries_sha256="cd" * 32,
    )
    capture = read_capture(path)
    assert capture.reference_graph == "exported_program"
    assert capture.method == "forward"
    assert capture.etrecord_sha256 == "ab" * 32
    assert capture.etrecord_entries_sha256 == "cd" * 32
    assert capture.producer["gapscope_capture"] == "0.1.0"
    assert set(capture.producer) >= {"torch", "executorch"}
    _assert_same(capture.inputs, inputs)
    _assert_same(capture.reference_outputs, reference_outputs)
    assert len(capture.records) == len(records)
    for actual, expected in zip(capture.records, records):
        assert actual.debug_handle == expected.debug_handle
        assert actual.ops == expected.ops
        assert actual.stack_traces == expected.stack_traces
        assert actual.sequence == expected.sequence
        assert actual.quantization == expected.quantization
        assert actual.axis_order == expected.axis_order
        _assert_same(actual.outputs, expected.outputs)


def test_document_follows_the_spec(tmp_path: Path, records: list[CaptureRecord]) -> None:
    path = tmp_path / "c.gscap.safetensors"
    write_capture(path, records, inputs=[torch.zeros(2)], reference_outputs=[torch.ones(1)])
    document = _document(path)
    assert document["format"] == "gapscope.aot_capture"
    assert document["version"] == FORMAT_VERSION
    assert document["reference_graph"] is None
    assert document["etrecord_sha256"] is None
    assert "etrecord_entries_sha256" not in document  # written only when known
    assert document["inputs"] == [{"kind": "tensor", "name": "inputs/0"}]
    assert document["reference_outputs"] == [{"kind": "tensor", "name": "reference_outputs/0"}]

    conv, topk, sym_size, scalars = document["records"][:4]
    assert conv == {
        "debug_handle": [3],
        "ops": ["conv2d"],
        "stack_traces": {"conv2d": 'File "model.py", line 12, in forward'},
        "sequence": False,
        "outputs": [{"kind": "tensor", "name": "records/0/0"}],
        "axis_order": None,
    }
    assert topk["sequence"] is True and topk["debug_handle"] == [4, 5]
    assert topk["outputs"] == [
        {"kind": "tensor", "name": "records/1/0"},
        {"kind": "tensor", "name": "records/1/1"},
    ]
    assert sym_size["outputs"] == [{"kind": "int", "value": 7}]
    assert scalars["outputs"] == [
        {"kind": "float", "value": 1.5},
        {"kind": "float", "value": "NaN"},
        {"kind": "float", "value": "Infinity"},
        {"kind": "float", "value": "-Infinity"},
        {"kind": "bool", "value": True},
        {"kind": "null"},
    ]
    nested = document["records"][7]["outputs"][0]
    assert nested == {
        "kind": "list",
        "items": [
            {"kind": "tensor", "name": "records/7/0/0"},
            {
                "kind": "list",
                "items": [
                    {"kind": "null"},
                    {"kind": "int", "value": 2},
                    {"kind": "list", "items": [{"kind": "tensor", "name": "records/7/0/1/2/0"}]},
                ],
            },
        ],
    }
    assert document["records"][10]["quantization"] == [PER_TENSOR]
    assert document["records"][10]["axis_order"] == [0, 1]
    assert _tensor_names(path) == {
        "inputs/0",
        "reference_outputs/0",
        "records/0/0",
        "records/1/0",
        "records/1/1",
        "records/4/0",
        "records/5/0",
        "records/6/0",
        "records/7/0/0",
        "records/7/0/1/2/0",
        "records/8/0",
        "records/9/0",
        "records/9/1",
        "records/9/2",
        "records/10/0",
    }


def test_safetensors_dtypes_and_shapes(tmp_path: Path) -> None:
    path = tmp_path / "c.gscap.safetensors"
    write_capture(
        path,
        [
            CaptureRecord((1,), ["b"], [torch.tensor([True])]),
            CaptureRecord((2,), ["s"], [torch.tensor(1.0)]),
            CaptureRecord((3,), ["e"], [torch.empty(0, 3, dtype=torch.int32)]),
        ],
    )
    with open(path, "rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(size))
    assert header["records/0/0"]["dtype"] == "BOOL"
    assert header["records/1/0"]["shape"] == []
    assert header["records/2/0"]["shape"] == [0, 3]
    begin, end = header["records/2/0"]["data_offsets"]
    assert begin == end


def test_file_without_metadata_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plain.safetensors"
    save_file({"x": torch.zeros(2)}, str(path), metadata={"other": "1"})
    with pytest.raises(CaptureFormatError, match="has no 'gapscope.aot_capture' key") as error:
        read_capture(path)
    assert str(path) in str(error.value)


def test_non_safetensors_and_missing_files_are_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.gscap.safetensors"
    garbage.write_bytes(b"\xff" * 64)
    with pytest.raises(CaptureFormatError, match="not a safetensors file"):
        read_capture(garbage)
    with pytest.raises(CaptureFormatError, match="no such file"):
        read_capture(tmp_path / "missing.gscap.safetensors")


def test_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.gscap.safetensors"
    document = {"format": "gapscope.aot_capture", "version": FORMAT_VERSION + 1, "records": []}
    save_file({}, str(path), metadata={METADATA_KEY: json.dumps(document)})
    with pytest.raises(CaptureFormatError, match="newer than the supported"):
        read_capture(path)


def test_dangling_tensor_name_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dangling.gscap.safetensors"
    document = {
        "format": "gapscope.aot_capture",
        "version": 1,
        "method": "forward",
        "records": [
            {
                "debug_handle": [1],
                "ops": ["x"],
                "sequence": False,
                "outputs": [{"kind": "tensor", "name": "records/0/0"}],
            }
        ],
    }
    save_file({}, str(path), metadata={METADATA_KEY: json.dumps(document)})
    with pytest.raises(CaptureFormatError, match="missing tensor 'records/0/0'"):
        read_capture(path)


def test_records_are_validated() -> None:
    with pytest.raises(CaptureFormatError, match="positive integers"):
        CaptureRecord((0,), ["x"], [torch.zeros(1)])
    with pytest.raises(CaptureFormatError, match="positive integers"):
        CaptureRecord((), ["x"], [torch.zeros(1)])
    with pytest.raises(CaptureFormatError, match="exactly one output"):
        CaptureRecord((1,), ["x"], [torch.zeros(1), torch.zeros(1)])
    with pytest.raises(CaptureFormatError, match="quantization entries"):
        CaptureRecord((1,), ["x"], [torch.zeros(1)], quantization=[None, None])


def test_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "c.gscap.safetensors"
    with pytest.raises(CaptureFormatError, match="records/0/0: cannot store a value of type str"):
        write_capture(path, [CaptureRecord((1,), ["x"], ["text"])])
    with pytest.raises(CaptureFormatError, match="no safetensors equivalent"):
        write_capture(path, [CaptureRecord((1,), ["x"], [torch.zeros(1, dtype=torch.complex64)])])
    assert list(tmp_path.iterdir()) == []


def test_write_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / "c.gscap.safetensors"
    write_capture(path, [CaptureRecord((1,), ["a"], [torch.zeros(1)])])
    write_capture(path, [CaptureRecord((2,), ["b"], [torch.ones(1)])])
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    assert read_capture(path).records[0].ops == ["b"]


def test_read_inputs(tmp_path: Path) -> None:
    path = tmp_path / "inputs.safetensors"
    save_file({"inputs/1": torch.ones(2), "inputs/0": torch.zeros(3), "other": torch.ones(1)}, str(path))
    inputs = read_inputs(path)
    assert [tuple(t.shape) for t in inputs] == [(3,), (2,)]

    gap = tmp_path / "gap.safetensors"
    save_file({"inputs/0": torch.zeros(1), "inputs/2": torch.zeros(1)}, str(gap))
    with pytest.raises(CaptureFormatError, match="'inputs/1' is missing"):
        read_inputs(gap)
    nested = tmp_path / "nested.safetensors"
    save_file({"inputs/0/1": torch.zeros(1)}, str(nested))
    with pytest.raises(CaptureFormatError, match="not named inputs/<index>"):
        read_inputs(nested)
    empty = tmp_path / "empty.safetensors"
    save_file({"x": torch.zeros(1)}, str(empty))
    with pytest.raises(CaptureFormatError, match="no tensors named inputs/0"):
        read_inputs(empty)


def test_a_capture_serves_as_inputs_file(tmp_path: Path) -> None:
    path = tmp_path / "c.gscap.safetensors"
    x = torch.randn(1, 3)
    write_capture(path, [CaptureRecord((1,), ["a"], [torch.zeros(1)])], inputs=[x])
    _assert_same(read_inputs(path), [x])


def _tap(index: int, reducer: str = "FULL_TENSOR", handle=(5,)) -> TapRecord:
    return TapRecord(
        output_index=index,
        node_name="conv2d",
        op_target="aten.conv2d.default",
        reducer=reducer,
        fields=("min", "max") if reducer == "STATS" else (),
        stack_trace=None,
        module_path="conv",
        module_class="Conv2d",
        debug_handle=handle,
    )


def test_taps_round_trip_beside_their_reference_outputs(tmp_path: Path) -> None:
    path = tmp_path / "taps.gscap.safetensors"
    outputs = [torch.ones(2), torch.arange(4.0), torch.tensor([0.0, 3.0])]
    taps = [_tap(1), _tap(2, "STATS", None)]
    write_capture(path, [], reference_outputs=outputs, taps=taps)
    document = _document(path)
    assert [t["output_index"] for t in document["taps"]] == [1, 2]
    assert document["taps"][1]["debug_handle"] is None
    capture = read_capture(path)
    assert capture.taps == taps
    # A capture without taps has none, and writes no key.
    plain = tmp_path / "plain.gscap.safetensors"
    write_capture(plain, [], reference_outputs=outputs)
    assert "taps" not in _document(plain)
    assert read_capture(plain).taps == []


def test_a_tap_without_its_reference_output_or_twice_one_output_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "taps.gscap.safetensors"
    with pytest.raises(CaptureFormatError, match="program output 3, but the capture holds 2"):
        write_capture(path, [], reference_outputs=[torch.ones(1), torch.ones(1)], taps=[_tap(3)])
    with pytest.raises(CaptureFormatError, match="two taps are program output 1"):
        write_capture(path, [], reference_outputs=[torch.ones(1), torch.ones(1)], taps=[_tap(1), _tap(1)])
    with pytest.raises(CaptureFormatError, match="output_index"):
        _tap(-1)
    with pytest.raises(CaptureFormatError, match="debug_handle"):
        _tap(0, handle=(0,))
    assert not path.exists()
