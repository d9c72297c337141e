"""The demo session: its files, and that its capture is what ExecuTorch's Inspector compares."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import torch
from executorch.devtools import Inspector
from executorch.devtools.etrecord import parse_etrecord
from executorch.extension.pybindings.portable_lib import _load_for_executorch

from gapscope_capture.etrecord_digest import etrecord_entries_sha256
from gapscope_capture.capture_format import read_capture
from gapscope_zoo.demo import METRICS, VARIANTS

FILES = [
    "model.pte",
    "etrecord.bin",
    "run.etdp",
    "run.debug.bin",
    "capture.gscap.safetensors",
    "executorch_gap_mse.json",
    "executorch_gap_l1.json",
    "executorch_gap_snr.json",
    "manifest.json",
]


def _graph_handles(etrecord) -> set[int]:
    programs = [etrecord.edge_dialect_program, *(etrecord.graph_map or {}).values()]
    handles: set[int] = set()
    for program in programs:
        for node in program.graph_module.graph.nodes:
            handle = node.meta.get("debug_handle")
            if handle is not None:
                handles.update([handle] if isinstance(handle, int) else handle)
    return handles


@pytest.mark.parametrize("variant", VARIANTS)
def test_files_and_manifest(demo_dir: Path, variant: str) -> None:
    directory = demo_dir / variant
    for name in FILES:
        assert (directory / name).is_file(), name
        assert (directory / name).stat().st_size < 256 * 1024, name
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["variant"] == variant
    assert manifest["seed"] == 0
    assert manifest["input_shapes"] == [[1, 3, 4, 4]]
    assert set(manifest["versions"]) == {"torch", "executorch", "gapscope_capture"}
    listed = {entry["name"]: entry for entry in manifest["files"]}
    extra = {"capture_float.gscap.safetensors"} if variant == "int8" else set()
    assert set(listed) == set(FILES) - {"manifest.json"} | extra
    assert (directory / "capture_float.gscap.safetensors").is_file() == bool(extra)
    for name, entry in listed.items():
        data = (directory / name).read_bytes()
        assert entry["bytes"] == len(data)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("variant", VARIANTS)
def test_capture_matches_the_etrecord(demo_dir: Path, variant: str) -> None:
    directory = demo_dir / variant
    capture = read_capture(directory / "capture.gscap.safetensors")
    etrecord_bytes = (directory / "etrecord.bin").read_bytes()
    assert capture.etrecord_sha256 == hashlib.sha256(etrecord_bytes).hexdigest()
    assert capture.etrecord_entries_sha256 == etrecord_entries_sha256(directory / "etrecord.bin")
    assert capture.reference_graph == "exported_program"
    assert capture.method == "forward"

    captured_handles = {h for record in capture.records for h in record.debug_handle}
    assert captured_handles <= _graph_handles(parse_etrecord(str(directory / "etrecord.bin")))

    ops = {op for record in capture.records for op in record.ops}
    assert {"conv2d", "relu", "layer_norm", "linear", "softmax", "topk"} <= ops
    (topk,) = [record for record in capture.records if record.ops == ["topk"]]
    assert topk.sequence
    assert [t.dtype for t in topk.outputs] == [torch.float32, torch.int64]
    assert [tuple(t.shape) for t in capture.inputs] == [(1, 3, 4, 4)]
    assert [tuple(t.shape) for t in capture.reference_outputs] == [(1, 4, 3), (1, 4, 3)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_capture_holds_what_the_inspector_compares(demo_dir: Path, variant: str) -> None:
    directory = demo_dir / variant
    inspector = Inspector(
        etdump_path=str(directory / "run.etdp"),
        etrecord=str(directory / "etrecord.bin"),
        debug_buffer_path=str(directory / "run.debug.bin"),
    )
    graph_module, name = inspector._resolve_reference_graph(None)
    expected, op_names = inspector._get_aot_intermediate_outputs_and_op_names(graph_module)
    expected = {key: value for key, value in expected.items() if min(key) > 0}

    capture = read_capture(directory / "capture.gscap.safetensors")
    assert name == capture.reference_graph
    assert [record.debug_handle for record in capture.records] == list(expected)
    for record in capture.records:
        assert record.ops == op_names[record.debug_handle]
        value = expected[record.debug_handle]
        values = list(value) if record.sequence else [value]
        assert all(torch.equal(a, b) for a, b in zip(record.outputs, values, strict=True))


def test_reference_outputs_match_the_fp32_runtime(demo_dir: Path) -> None:
    directory = demo_dir / "fp32"
    capture = read_capture(directory / "capture.gscap.safetensors")
    runtime = _load_for_executorch(str(directory / "model.pte"))
    values, indices = runtime.forward(tuple(capture.inputs))
    torch.testing.assert_close(values, capture.reference_outputs[0])
    assert torch.equal(indices, capture.reference_outputs[1])


def test_int8_capture_records_quantisation(demo_dir: Path) -> None:
    capture = read_capture(demo_dir / "int8" / "capture.gscap.safetensors")
    (relu,) = [record for record in capture.records if "relu" in record.ops]
    (entry,) = relu.quantization
    assert entry["scheme"] == "per_tensor"
    assert entry["dtype"] == "int8" and (entry["qmin"], entry["qmax"]) == (-128, 127)
    assert entry["scale"] > 0
    (softmax,) = [record for record in capture.records if record.ops == ["softmax"]]
    assert softmax.quantization is None
    fp32 = read_capture(demo_dir / "fp32" / "capture.gscap.safetensors")
    assert all(record.quantization is None for record in fp32.records)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("metric", METRICS)
def test_executorch_gap_rows(demo_dir: Path, variant: str, metric: str) -> None:
    rows = json.loads((demo_dir / variant / f"executorch_gap_{metric.lower()}.json").read_text())
    assert rows
    for row in rows:
        assert set(row) == {"aot_debug_handle", "aot_ops", "runtime_ops", "runtime_debug_handle", "gap"}
        assert row["aot_debug_handle"] and all(isinstance(h, int) for h in row["aot_debug_handle"])
        assert row["gap"] and all(
            isinstance(g, float) or g in ("NaN", "Infinity", "-Infinity") for g in row["gap"]
        )
    if metric == "MSE":
        assert all(g != "NaN" and g < 1e-3 for row in rows for g in row["gap"])
