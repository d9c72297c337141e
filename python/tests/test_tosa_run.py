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

from gapscope_capture.tosa_run import (
    TOSA_RUN_FORMAT,
    TosaRunError,
    program_partition,
    run_every_op,
    run_program,
    write_runs,
)
from gapscope_zoo.zoo_arm import (
    REFEREE_FILE,
    TOSA_DIR,
    arm_attention_block,
    arm_conv_net,
    arm_split_conv_net,
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
    # Every non-constant op came back, and nothing else; each with the Arm
    # backend's entry from its location, tracing it to the model's own node.
    assert set(run.tensors) == {op.output for op in run.ops}
    assert {op.debug["torch_info"]["node_trace"][-1]["name"] for op in run.ops} == {"conv2d", "relu", "flatten", "linear"}
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
    write_runs(path, runs, program_partition(program.exported_program()))
    with safe_open(str(path), framework="numpy") as f:
        document = json.loads(f.metadata()[TOSA_RUN_FORMAT])
        assert document["format"] == TOSA_RUN_FORMAT and document["version"] == 2
        [delegate] = document["delegates"]
        assert delegate["backend"] == "TOSABackend" and delegate["tensor_prefix"] == "d0/"
        assert [op["output"] for op in delegate["ops"]] == [op.output for op in runs[0].ops]
        # Each op's debug entry, from its location in the graph, naming it.
        assert [e["tosa_info"]["node_name"] for e in delegate["debug"]] == [op.output for op in runs[0].ops]
        assert all(e["torch_info"]["node_trace"] for e in delegate["debug"])
        # The call's sides: the input quantize's int8 in, int8 out to the output dequantize.
        assert delegate["graph_input_types"] == ["INT8"]
        assert [side["dtype"] for side in delegate["call"]["inputs"] + delegate["call"]["outputs"]] == ["int8", "int8"]
        assert delegate["call"]["inputs"][0]["from"]["target"].endswith("quantize_per_tensor.default")
        assert [op["target"].rsplit(".", 2)[-2] for op in document["cpu_ops"]] == [
            "quantize_per_tensor",
            "dequantize_per_tensor",
        ]
        # The convolution's TRANSPOSEs to channels-last and back, with their permutations.
        assert [op.get("perms") for op in delegate["ops"] if op["op"] == "TRANSPOSE"] == [[0, 2, 3, 1], [0, 3, 1, 2]]
        assert all("perms" not in op for op in delegate["ops"] if op["op"] != "TRANSPOSE")
        for op in runs[0].ops:
            assert np.array_equal(f.get_tensor("d0/" + op.output), runs[0].tensors[op.output])
        for name in runs[0].graph_inputs:
            assert np.array_equal(f.get_tensor("d0/" + name), runs[0].inputs[name])
    assert not list(tmp_path.glob("*.partial"))


def test_a_graph_lowered_without_its_debug_entries_is_not_written(lowered: dict[str, tuple], tmp_path: Path) -> None:
    program, _, inputs, _ = lowered["FP"]
    _, runs = run_program(program.exported_program(), inputs)
    runs[0].ops[1] = type(runs[0].ops[1])(**{**runs[0].ops[1].__dict__, "debug": None})
    with pytest.raises(TosaRunError, match="DebugMode.TOSA"):
        write_runs(tmp_path / "tosa_run.safetensors", runs, program_partition(program.exported_program()))
    assert not list(tmp_path.iterdir())


def test_an_ethos_u_program_runs_each_delegate_in_call_order(tmp_path: Path) -> None:
    # EthosUPartitioner leaves the sort on the CPU: two delegates, whose payload
    # is Vela's command stream; their TOSA graphs, from the dump folder, run.
    model, inputs = arm_split_conv_net()
    program, computed, _ = lower_for_tosa(model, inputs, "INT", tmp_path / TOSA_DIR, target="ethos-u55-128")
    outputs, runs = run_program(program.exported_program(), inputs, tosa_dir=tmp_path / TOSA_DIR)
    assert [run.backend for run in runs] == ["EthosUBackend", "EthosUBackend"]
    # The delegation tags do not follow call order; the runs do.
    assert [run.tosa_name.split("_TOSA")[0] for run in runs] == ["output_tag1", "output_tag0"]
    with torch.no_grad():
        assert torch.equal(outputs[0] if isinstance(outputs, (list, tuple)) else outputs, computed(*inputs))
    partition = program_partition(program.exported_program())
    assert [op["target"].rsplit(".", 2)[-2] for op in partition.cpu_ops] == [
        "quantize_per_tensor",
        "dequantize_per_tensor",
        "sort",
        "quantize_per_tensor",
        "dequantize_per_tensor",
    ]
    assert [call["inputs"][0]["from"]["node"] for call in partition.calls] == [
        "quantized_decomposed_quantize_per_tensor_default",
        "quantized_decomposed_quantize_per_tensor_default_2",
    ]
    with pytest.raises(TosaRunError, match="no dump folder"):
        run_program(program.exported_program(), inputs)


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
    assert all(op.debug and op.debug["tosa_info"]["node_name"] == op.output for op in runs[0].ops)
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
        f"{TOSA_DIR}/output_tag0_TOSA-1.0+INT.tosa",
    ):
        assert (directory / name).is_file(), name
    # ExecuTorch's Arm referee, against the program lowered and the float model.
    referee = json.loads((directory / REFEREE_FILE).read_text())["captures"]
    assert referee["capture.gscap.safetensors"][0]["relative_frobenius_error"] == 0.0
    assert 0 < referee["capture_float.gscap.safetensors"][0]["relative_frobenius_error"] < 0.1
