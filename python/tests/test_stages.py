"""``gapscope-capture stages``: every reference of the stage ladder from an ETRecord (issue 59)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch.export import export

from gapscope_capture.capture import capture_from_etrecord
from gapscope_capture.capture_format import read_capture
from gapscope_capture.cli import main
from gapscope_capture.float_reference import capture_float_reference
from gapscope_zoo.zoo_bn import build, quantize


@pytest.fixture(scope="module")
def int8_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A PT2E int8 conv + BatchNorm net lowered to XNNPACK and run; its float program saved."""
    import executorch.kernels.quantized  # noqa: F401
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    from gapscope_capture.host_run import lower_and_run

    directory = tmp_path_factory.mktemp("int8")
    model, inputs = build()
    float_program = export(model, inputs)
    lower_and_run(directory, quantize(float_program, inputs), inputs, [XnnpackPartitioner()], 4 << 20)
    saved = directory / "float.pt2"
    torch.export.save(float_program, str(saved))
    return directory, saved


def _same(a, b) -> bool:
    return [(r.debug_handle, r.ops) for r in a.records] == [(r.debug_handle, r.ops) for r in b.records] and all(
        all(torch.equal(x, y) for x, y in zip(r.outputs, s.outputs) if isinstance(x, torch.Tensor))
        for r, s in zip(a.records, b.records)
    )


def test_stages_writes_each_reference_keyed_like_the_device(int8_session, tmp_path: Path, capsys) -> None:
    directory, saved = int8_session
    out = tmp_path / "stages"
    assert main(["stages", str(directory / "etrecord.bin"), str(out), "--float-program", str(saved)]) == 0
    err = capsys.readouterr().err
    assert "gapscope-cli compare" in err and "--ladder" in err

    aten = read_capture(out / "aten.gscap.safetensors")
    edge = read_capture(out / "edge.gscap.safetensors")
    flt = read_capture(out / "float.gscap.safetensors")
    host = read_capture(out / "host.gscap.safetensors")
    assert aten.reference_graph == "exported_program"
    assert edge.reference_graph == "edge_dialect_exported_program"
    assert flt.reference_graph.startswith("float_exported_program (handles by node provenance from exported_program")
    assert host.reference_graph == "host_twin_runtime"
    # The same graphs as the one-graph commands capture, value for value.
    etrecord = directory / "etrecord.bin"
    assert _same(aten, capture_from_etrecord(etrecord, reference_graph="exported_program"))
    assert _same(edge, capture_from_etrecord(etrecord, reference_graph="edge_dialect_exported_program"))
    assert _same(flt, capture_float_reference(torch.export.load(str(saved)), capture_from_etrecord(etrecord)))
    # The twin beside them is a session of its own, with its float reference.
    assert (out / "host-twin" / "capture_float.gscap.safetensors").is_file()
    assert (out / "host-twin" / "run.etdp").is_file()


def test_stages_without_float_program_or_host_twin(int8_session, tmp_path: Path, capsys) -> None:
    directory, _ = int8_session
    out = tmp_path / "stages"
    assert main(["stages", str(directory / "etrecord.bin"), str(out), "--no-host"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["aten.gscap.safetensors", "edge.gscap.safetensors"]


def test_stages_of_a_bad_etrecord_is_a_user_error(tmp_path: Path, capsys) -> None:
    bogus = tmp_path / "etrecord.bin"
    bogus.write_bytes(b"not a zip")
    assert main(["stages", str(bogus), str(tmp_path / "stages")]) == 1
    err = capsys.readouterr().err
    assert str(bogus) in err and "not a readable ETRecord" in err
    not_folder = tmp_path / "file"
    not_folder.write_text("")
    assert main(["stages", str(bogus), str(not_folder)]) == 2
