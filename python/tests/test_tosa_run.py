"""The TOSA reference model's run with every op kept (issue 61), on a model lowered by ExecuTorch's Arm backend.

The lowering is ExecuTorch's (TOSAPartitioner, TOSAQuantizer), the run its Arm
tests' route (TosaReferenceModelDispatch, tosa_reference_model.run); what is
checked is that keeping every op changes nothing the reference model computes,
and that each kept tensor is the op's: the float profile's against torch's own
ops, the integer profile's against the fake-quantised model.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors import safe_open

from gapscope_capture.tosa_run import TOSA_RUN_FORMAT, TosaRunError, run_every_op, run_program
from gapscope_zoo.zoo_arm import (
    REFEREE_FILE,
    TOSA_DIR,
    arm_attention_block,
    arm_conv_net,
    lower_for_tosa,
    write_arm_session,
)


@pytest.fixture(scope="module")
def lowered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    out = {}
    for profile in ("FP", "INT"):
        model, inputs = arm_conv_net()
        tosa_dir = tmp_path_factory.mktemp(f"tosa-{profile}")
        program, computed, _ = lower_for_tosa(model, inputs, profile, tosa_dir)
        out[profile] = (program, computed, inputs, tosa_dir)
    return out


def test_the_float_profile_keeps_every_op_and_each_is_torchs(lowered: dict[str, tuple]) -> None:
    program, model, inputs, tosa_dir = lowered["FP"]
    outputs, runs = run_program(program.exported_program(), inputs)
    assert len(runs) == 1
    run = runs[0]
    debug = json.loads((tosa_dir / "debug.json").read_text())
    # Every op debug.json names (the non-constant ones) came back, and nothing else.
    assert sorted(e["tosa_info"]["node_name"] for e in debug) == sorted(op.output for op in run.ops)
    assert set(run.tensors) == {op.output for op in run.ops}
    with torch.no_grad():
        x = inputs[0]
        conv = model.conv(x)
        expected = model(x)
    # The program's output through the delegate is the model's (rounding: the design note's 4e-7).
    assert torch.allclose(outputs[0] if isinstance(outputs, (list, tuple)) else outputs, expected, atol=1e-5)
    by_op = {op.output: op for op in run.ops}
    # The convolution in the graph's layout (NHWC), and transposed back (NCHW), is torch's.
    nhwc = next(op for op in run.ops if op.op == "CONV2D")
    assert nhwc.shape == (1, 16, 16, 8)
    assert np.allclose(run.tensors[nhwc.output], conv.permute(0, 2, 3, 1).numpy(), atol=1e-5)
    back = next(op for op in run.ops if op.op == "TRANSPOSE" and nhwc.output in op.inputs)
    assert np.allclose(run.tensors[back.output], conv.numpy(), atol=1e-5)
    assert by_op[run.graph_outputs[0]].shape == (1, 10)


def test_the_integer_profile_is_the_fake_quantised_model_to_the_bit(lowered: dict[str, tuple]) -> None:
    program, computed, inputs, _ = lowered["INT"]
    outputs, runs = run_program(program.exported_program(), inputs)
    run = runs[0]
    with torch.no_grad():
        expected = computed(*inputs)
    # The quantize/dequantize outside the delegate run in torch: the output is the fake-quantised model's.
    assert torch.equal(outputs[0] if isinstance(outputs, (list, tuple)) else outputs, expected)
    dtypes = {op.op: op.dtype for op in run.ops}
    assert dtypes["CONV2D"] == "INT32" and dtypes["RESCALE"] == "INT8"
    for op in run.ops:  # integers stay integers: the reader dequantises
        assert run.tensors[op.output].dtype == {"INT8": np.int8, "INT32": np.int32}[op.dtype]
        assert run.tensors[op.output].shape == op.shape


def test_keeping_every_op_changes_no_output(lowered: dict[str, tuple]) -> None:
    import tosa_reference_model as reference_model

    program, _, inputs, tosa_dir = lowered["INT"]
    graph = next(tosa_dir.glob("*.tosa")).read_bytes()
    _, runs = run_program(program.exported_program(), inputs)
    run = runs[0]
    # The graph as lowered, not rewritten, on what the delegate was handed (int8, quantised outside it).
    assert [a.dtype for a in run.inputs.values()] == [np.int8]
    plain, status = reference_model.run(
        graph, [run.inputs[name] for name in run.graph_inputs], initialize_variable_tensor_from_numpy=True
    )
    assert status == reference_model.GraphStatus.TOSA_VALID
    assert len(plain) == len(run.graph_outputs)
    for name, array in zip(run.graph_outputs, plain):
        assert np.array_equal(run.tensors[name], array)


def test_the_run_is_written_with_its_document(lowered: dict[str, tuple], tmp_path: Path) -> None:
    program, _, inputs, tosa_dir = lowered["INT"]
    _, runs = run_program(program.exported_program(), inputs)
    path = tmp_path / "tosa_run.safetensors"
    runs[0].write(path, debug_json=tosa_dir / "debug.json")
    with safe_open(str(path), framework="numpy") as f:
        document = json.loads(f.metadata()[TOSA_RUN_FORMAT])
        assert document["format"] == TOSA_RUN_FORMAT and document["version"] == 1
        assert [op["output"] for op in document["ops"]] == [op.output for op in runs[0].ops]
        assert document["debug_json"]["name"] == "debug.json"
        # Where a reader finds it, from the run's folder.
        assert (path.parent / document["debug_json"]["path"]).resolve() == (tosa_dir / "debug.json").resolve()
        # The convolution's TRANSPOSEs to channels-last and back, with their permutations.
        assert [op.get("perms") for op in document["ops"] if op["op"] == "TRANSPOSE"] == [[0, 2, 3, 1], [0, 3, 1, 2]]
        assert all("perms" not in op for op in document["ops"] if op["op"] != "TRANSPOSE")
        for op in runs[0].ops:
            assert np.array_equal(f.get_tensor(op.output), runs[0].tensors[op.output])
        for name in runs[0].graph_inputs:
            assert np.array_equal(f.get_tensor(name), runs[0].inputs[name])
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize("profile", ["FP", "INT"])
def test_an_attention_block_runs_whole_in_both_profiles(profile: str, tmp_path: Path) -> None:
    # A model the route was not written around: attention, LayerNorm, GELU
    # (INT: table lookups and int32 accumulators), in one delegate.
    model, inputs = arm_attention_block()
    program, computed, _ = lower_for_tosa(model, inputs, profile, tmp_path / TOSA_DIR)
    outputs, runs = run_program(program.exported_program(), inputs)
    assert len(runs) == 1
    with torch.no_grad():
        expected = computed(*inputs)
    got = outputs[0] if isinstance(outputs, (list, tuple)) else outputs
    if profile == "FP":
        assert torch.allclose(got, expected, atol=1e-5)
    else:
        assert torch.equal(got, expected)
    debug = json.loads((tmp_path / TOSA_DIR / "debug.json").read_text())
    assert sorted(e["tosa_info"]["node_name"] for e in debug) == sorted(op.output for op in runs[0].ops)
    assert len(runs[0].ops) > 50


def test_a_file_that_is_not_tosa_is_refused_by_name() -> None:
    with pytest.raises(TosaRunError, match="bogus.tosa"):
        run_every_op(b"\x00\x01not a flatbuffer", [], name="bogus.tosa")


def test_a_session_folder(tmp_path: Path) -> None:
    directory = write_arm_session(tmp_path / "int8", "INT")
    for name in (
        "etrecord.bin",
        "model.pte",
        "tosa_run.safetensors",
        "capture.gscap.safetensors",
        "capture_float.gscap.safetensors",
        "inputs.safetensors",
        "outputs.safetensors",
        REFEREE_FILE,
        f"{TOSA_DIR}/debug.json",
    ):
        assert (directory / name).is_file(), name
    # ExecuTorch's Arm referee, against the program lowered and the float model.
    referee = json.loads((directory / REFEREE_FILE).read_text())["captures"]
    assert referee["capture.gscap.safetensors"][0]["relative_frobenius_error"] == 0.0
    assert 0 < referee["capture_float.gscap.safetensors"][0]["relative_frobenius_error"] < 0.1
