"""The gapscope-capture command: from-etrecord results and error handling."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from gapscope_capture.capture_format import read_capture
from gapscope_capture.cli import main


def test_from_etrecord_reproduces_the_demo_capture(demo_dir: Path, tmp_path: Path) -> None:
    output = tmp_path / "fp32.gscap.safetensors"
    assert main(["from-etrecord", str(demo_dir / "fp32" / "etrecord.bin"), "-o", str(output)]) == 0
    expected = read_capture(demo_dir / "fp32" / "capture.gscap.safetensors")
    actual = read_capture(output)
    assert actual.etrecord_sha256 == expected.etrecord_sha256
    assert [(r.debug_handle, r.ops) for r in actual.records] == [
        (r.debug_handle, r.ops) for r in expected.records
    ]
    for a, e in zip(actual.records, expected.records):
        assert all(torch.equal(x, y) for x, y in zip(a.outputs, e.outputs))


def test_from_etrecord_with_inputs_and_reference_graph(demo_dir: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "inputs.safetensors"
    x = torch.full((1, 3, 4, 4), 0.5)
    save_file({"inputs/0": x}, str(inputs))
    output = tmp_path / "edge.gscap.safetensors"
    argv = [
        "from-etrecord",
        str(demo_dir / "int8" / "etrecord.bin"),
        "--inputs",
        str(inputs),
        "--reference-graph",
        "edge_dialect_exported_program",
        "-o",
        str(output),
    ]
    assert main(argv) == 0
    capture = read_capture(output)
    assert capture.reference_graph == "edge_dialect_exported_program"
    assert torch.equal(capture.inputs[0], x)
    assert capture.records


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda d, t: [str(t / "missing.bin")], "missing.bin: cannot read the ETRecord"),
        (lambda d, t: [str(t / "garbage.bin")], "garbage.bin: not a readable ETRecord"),
        (
            lambda d, t: [str(d / "fp32" / "etrecord.bin"), "--reference-graph", "nope"],
            "reference graph 'nope/forward' not found; available: 'exported_program'",
        ),
        (
            lambda d, t: [str(d / "fp32" / "etrecord.bin"), "--inputs", str(t / "bad_shape.safetensors")],
            "running the reference graph on the inputs failed",
        ),
        (
            lambda d, t: [str(d / "fp32" / "etrecord.bin"), "--inputs", str(t / "garbage.bin")],
            "garbage.bin: not a safetensors file",
        ),
    ],
)
def test_user_errors_exit_1_with_a_message(
    demo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], make_args, message: str
) -> None:
    (tmp_path / "garbage.bin").write_bytes(b"not a zip, not safetensors")
    save_file({"inputs/0": torch.zeros(2, 2)}, str(tmp_path / "bad_shape.safetensors"))
    argv = ["from-etrecord", *make_args(demo_dir, tmp_path), "-o", str(tmp_path / "out.gscap.safetensors")]
    assert main(argv) == 1
    stderr = capsys.readouterr().err
    assert stderr.startswith("gapscope-capture: error: ")
    assert message in stderr
    assert not (tmp_path / "out.gscap.safetensors").exists()


def test_unwritable_output_is_a_user_error(demo_dir: Path, tmp_path: Path, capsys) -> None:
    output = tmp_path / "no" / "such" / "dir" / "c.gscap.safetensors"
    argv = ["from-etrecord", str(demo_dir / "fp32" / "etrecord.bin"), "-o", str(output)]
    assert main(argv) == 1
    assert f"{output.parent}: output directory does not exist" in capsys.readouterr().err


def test_command_line_error_has_no_traceback(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "gapscope_capture", "from-etrecord", str(tmp_path / "x.bin"), "-o", "c"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
    )
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr
    assert "x.bin: cannot read the ETRecord: No such file or directory" in completed.stderr


# Run with torch and ExecuTorch made unimportable: the wheel installs them only
# with the "executorch" extra, and --help / --version must work without it.
_WITHOUT_TORCH = (
    "import sys\n"
    "for name in ('torch', 'executorch'):\n"
    "    sys.modules[name] = None\n"
    "from gapscope_capture.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _run_without_torch(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_TORCH, *argv],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
    )


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["from-etrecord", "--help"], ["twin", "--help"]])
def test_help_and_version_need_neither_torch_nor_executorch(argv: list[str]) -> None:
    completed = _run_without_torch(argv)
    assert completed.returncode == 0, completed.stderr
    assert ("usage: gapscope-capture" in completed.stdout) or completed.stdout.startswith("gapscope-capture ")


def test_a_capture_command_without_torch_names_the_extra(tmp_path: Path) -> None:
    output = tmp_path / "out.gscap.safetensors"
    completed = _run_without_torch(["from-etrecord", str(tmp_path / "etrecord.bin"), "-o", str(output)])
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr
    assert "gapscope_capture[executorch]" in completed.stderr
    assert not output.exists()


def test_the_test_fixtures_are_not_in_the_exporter() -> None:
    """The demo and the zoo are gapscope_zoo's (issue 57): not a command, not in the package."""
    completed = _run_without_torch(["--help"])
    assert " demo " not in completed.stdout and " zoo " not in completed.stdout
    package = Path(__file__).parents[1] / "gapscope_capture"
    assert not list(package.glob("zoo*.py")) and not (package / "demo.py").exists()


def test_from_etrecord_with_several_inputs_writes_one_capture_per_step(tmp_path: Path) -> None:
    """Steps with state: a counter buffer carried from step to step, as on the device."""
    from executorch.exir import to_edge_transform_and_lower
    from torch.export import export

    class Accumulate(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("total", torch.zeros(4))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.total.add_(x)
            return self.total * 2.0

    steps = [torch.full((4,), float(k + 1)) for k in range(3)]
    with torch.no_grad():
        exported = export(Accumulate(), (steps[0],))
    program = to_edge_transform_and_lower(exported, generate_etrecord=True).to_executorch()
    etrecord = tmp_path / "etrecord.bin"
    program.get_etrecord().save(str(etrecord))
    argv = ["from-etrecord", str(etrecord)]
    for k, x in enumerate(steps):
        save_file({"inputs/0": x}, str(tmp_path / f"step{k}.safetensors"))
        argv += ["--inputs", str(tmp_path / f"step{k}.safetensors")]
    out = tmp_path / "steps"
    assert main([*argv, "-o", str(out)]) == 0
    captures = sorted(out.iterdir())
    assert [c.name for c in captures] == [f"capture.forward.step-{k:03d}.gscap.safetensors" for k in range(3)]
    running = torch.zeros(4)
    for k, path in enumerate(captures):
        capture = read_capture(path)
        assert capture.step == k
        running += steps[k]
        # The last op's output is the running total doubled: the buffer was carried.
        assert torch.equal(capture.reference_outputs[0], running * 2.0)


def test_steps_are_yielded_one_at_a_time_and_hold_no_autograd_graph(tmp_path: Path) -> None:
    """Issue 54: 65 steps of an 8-layer decoder held together, each output with its
    grad_fn, peaked at 9.85 GB. Each step is handed over as it is made, and keeps values."""
    import gc
    import weakref

    from executorch.exir import to_edge_transform_and_lower
    from torch.export import export

    from gapscope_capture.steps import capture_steps_from_etrecord, iter_steps_from_etrecord

    class Accumulate(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("total", torch.zeros(4))
            self.scale = torch.nn.Parameter(torch.full((4,), 2.0))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.total.add_(x)
            return torch.tanh(self.total * self.scale)

    steps = [(torch.full((4,), float(k + 1)),) for k in range(4)]
    with torch.no_grad():
        exported = export(Accumulate(), steps[0])
    program = to_edge_transform_and_lower(exported, generate_etrecord=True).to_executorch()
    etrecord = tmp_path / "etrecord.bin"
    program.get_etrecord().save(str(etrecord))

    alive = []
    for k, result in enumerate(iter_steps_from_etrecord(etrecord, steps)):
        assert result.step == k
        values = [v for r in result.records for v in r.outputs if isinstance(v, torch.Tensor)]
        values += [v for v in result.reference_outputs if isinstance(v, torch.Tensor)]
        assert values and all(v.grad_fn is None for v in values)
        alive.append(weakref.ref(result))
        del result, values
        gc.collect()
        # The step before this one is gone: only what the caller keeps is kept.
        assert all(ref() is None for ref in alive[:-1])
    # The list form gives the same values.
    listed = capture_steps_from_etrecord(etrecord, steps)
    assert [r.step for r in listed] == [0, 1, 2, 3]


def test_twin_runs_the_int8_demo_without_its_delegate(demo_dir: Path, tmp_path: Path, capsys) -> None:
    """The demo's int8 program is one XNNPACK delegate row; its twin one row per op, with the
    delegated program's debug handles."""
    from gapscope_capture.capture_format import read_capture
    from gapscope_capture.host_twin import HOST_OUTPUTS, HOST_OUTPUTS_GRAPH

    from torch.export import export

    from gapscope_zoo.demo import seeded_model_and_inputs

    model, inputs = seeded_model_and_inputs()
    torch.export.save(export(model, inputs), str(tmp_path / "float.pt2"))
    device = read_capture(demo_dir / "int8" / "capture.gscap.safetensors")
    outdir = tmp_path / "twin"
    argv = ["twin", str(demo_dir / "int8" / "etrecord.bin"), str(outdir), "--float-program", str(tmp_path / "float.pt2")]
    assert main(argv) == 0
    said = capsys.readouterr().err
    assert "one row per op" in said and "--capture" in said and "capture_float.gscap.safetensors" in said
    for name in ("etrecord.bin", "model.pte", "run.etdp", "run.debug.bin", "capture.gscap.safetensors"):
        assert (outdir / name).stat().st_size > 0, name
    twin = read_capture(outdir / "capture.gscap.safetensors")
    assert [r.debug_handle for r in twin.records] == [r.debug_handle for r in device.records]
    host = read_capture(outdir / HOST_OUTPUTS)
    assert host.reference_graph == HOST_OUTPUTS_GRAPH
    assert len(host.records) > 5
    # Rows read as the program's ops, not the kernels that ran them.
    ops = {r.debug_handle: r.ops for r in twin.records}
    assert all(r.ops == ops[r.debug_handle] for r in host.records if r.debug_handle in ops)
    assert all(isinstance(r.outputs[0], torch.Tensor) for r in host.records)
    floating = read_capture(outdir / "capture_float.gscap.safetensors")
    assert floating.reference_graph.startswith("float_exported_program (handles by node provenance")
    assert {r.debug_handle for r in floating.records} <= {r.debug_handle for r in twin.records}


def test_twin_user_errors(demo_dir: Path, tmp_path: Path, capsys) -> None:
    assert main(["twin", str(tmp_path / "missing.bin"), str(tmp_path / "out")]) == 1
    assert "missing.bin: cannot read the ETRecord" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["twin", str(demo_dir / "int8" / "etrecord.bin"), str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err
    argv = ["twin", str(demo_dir / "int8" / "etrecord.bin"), str(tmp_path / "o"), "--float-program", str(tmp_path / "file")]
    assert main(argv) == 1
    assert "file: not a saved ExportedProgram" in capsys.readouterr().err


def test_taps_writes_the_reference_of_a_tapped_program(test_data_dir: Path, tmp_path: Path, capsys) -> None:
    TAPS = test_data_dir / "xnnpack_taps_int8"
    out = tmp_path / "taps.gscap.safetensors"
    assert main(["taps", str(TAPS / "etrecord.bin"), "--specs", str(TAPS / "taps.json"), "-o", str(out)]) == 0
    assert "8 taps (4 whole, 4 reduced)" in capsys.readouterr().err
    written, committed = read_capture(out), read_capture(TAPS / "capture.gscap.safetensors")
    assert written.taps == committed.taps
    assert [r.debug_handle for r in written.records] == [r.debug_handle for r in committed.records]
    # Specs of another program (every index moved by one) are refused, and nothing is written.
    import json

    moved = json.loads((TAPS / "taps.json").read_text())
    for spec in moved:
        spec["output_index"] -= 1
    specs = tmp_path / "moved.json"
    specs.write_text(json.dumps(moved))
    refused = tmp_path / "refused.gscap.safetensors"
    assert main(["taps", str(TAPS / "etrecord.bin"), "--specs", str(specs), "-o", str(refused)]) == 1
    assert "the specs are of another program" in capsys.readouterr().err
    assert not refused.exists()
