"""A device's folder to its reference in one request (issue 60): for-session and serve."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
import torch

from gapscope_capture.capture import capture_from_etrecord
from gapscope_capture.capture_errors import CaptureError
from gapscope_capture.capture_format import read_capture, write_inputs
from gapscope_capture.cli import main
from gapscope_capture.session_capture import find_inputs, make_session_capture, serve


@pytest.fixture()
def device_folder(tmp_path: Path, test_data_dir: Path) -> Path:
    for name in ("etrecord.bin", "run.etdp", "run.debug.bin"):
        shutil.copy(test_data_dir / "portable_mha" / name, tmp_path / name)
    return tmp_path


def _tensors(path: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(path))


def test_for_session_writes_from_etrecords_capture(device_folder: Path, tmp_path_factory) -> None:
    out = device_folder / "capture.gscap.safetensors"
    assert main(["for-session", str(device_folder / "etrecord.bin"), "-o", str(out)]) == 0
    expected = tmp_path_factory.mktemp("expected") / "capture.gscap.safetensors"
    capture_from_etrecord(device_folder / "etrecord.bin").write(expected)
    mine, theirs = _tensors(out), _tensors(expected)
    assert sorted(mine) == sorted(theirs)
    assert all(torch.equal(mine[k], theirs[k]) for k in theirs)
    assert len(read_capture(out).records) == len(read_capture(expected).records)
    # Never replaced.
    assert main(["for-session", str(device_folder / "etrecord.bin"), "-o", str(out)]) == 1


def test_the_inputs_beside_the_etrecord_are_used(device_folder: Path) -> None:
    etrecord = device_folder / "etrecord.bin"
    representative = capture_from_etrecord(etrecord)
    other = [torch.full_like(t, 0.5) if t.is_floating_point() else t for t in representative.inputs]
    write_inputs(other, device_folder / "inputs.safetensors")
    assert find_inputs(device_folder) == device_folder / "inputs.safetensors"
    done = make_session_capture(etrecord, device_folder / "capture.gscap.safetensors")
    assert done["inputs"] == str(device_folder / "inputs.safetensors")
    written = read_capture(device_folder / "capture.gscap.safetensors")
    assert all(torch.equal(a, b) for a, b in zip(written.inputs, other))
    # Two inputs files: which execution the run is cannot be guessed.
    write_inputs(other, device_folder / "more-inputs.safetensors")
    with pytest.raises(CaptureError, match="several inputs files"):
        find_inputs(device_folder)


def test_serve_speaks_its_protocol(device_folder: Path) -> None:
    out = device_folder / "capture.gscap.safetensors"
    request = json.dumps({"etrecord": str(device_folder / "etrecord.bin"), "output": str(out)}) + "\n"
    stdout = io.StringIO()
    assert serve(io.StringIO(request), stdout) == 0
    events = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert events[0]["event"] == "ready" and events[0]["startup_cpu_seconds"] >= 0
    progress = [e for e in events if e["event"] == "progress"]
    assert progress and all(0 <= e["fraction"] <= 1 for e in progress)
    assert [e["fraction"] for e in progress] == sorted(e["fraction"] for e in progress)
    assert events[-1]["event"] == "done" and events[-1]["output"] == str(out) and events[-1]["records"] > 0
    assert out.exists()
    # A second request for the same output is an error event, not a crash; a bad line too.
    stdout = io.StringIO()
    assert serve(io.StringIO(request), stdout) == 1
    assert json.loads(stdout.getvalue().splitlines()[-1])["message"].endswith("already exists; not replaced")
    stdout = io.StringIO()
    assert serve(io.StringIO("{not json\n"), stdout) == 2
    assert json.loads(stdout.getvalue().splitlines()[-1])["message"].startswith("bad request")
    # A closed input ends the worker without a capture.
    assert serve(io.StringIO(""), io.StringIO()) == 0
