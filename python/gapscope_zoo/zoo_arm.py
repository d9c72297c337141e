"""Arm sessions (issue 61): a model lowered with ExecuTorch's Arm backend to TOSA, run on the TOSA reference model.

The route is ExecuTorch's own Arm tests' (backends/arm/test): a
``TosaCompileSpec`` for the FP or INT profile, PT2E with ``TOSAQuantizer`` for
INT, ``to_edge_transform_and_lower`` with ``TOSAPartitioner``, and the lowered
program run in torch with each TOSA delegate call handed to the reference
model (``TosaReferenceModelDispatch``). The delegate's graph runs with every op
kept (``gapscope_capture.tosa_run``). A session folder holds:

- ``etrecord.bin``, ``model.pte``: ExecuTorch's, as for any backend;
- ``tosa/``: what the Arm backend dumped, ``output_tag<N>_TOSA-1.0+<profile>.tosa``, each
  op's ATen node in its location (DebugMode.TOSA, docs/arm.md);
- ``tosa_run.safetensors``: every op's tensor of each delegate call as the reference model
  computed it;
- ``capture.gscap.safetensors``: the AOT capture from the ETRecord, and, for
  INT, ``capture_float.gscap.safetensors``: the float model under the same keys;
- ``inputs.safetensors``.
"""

from __future__ import annotations

import json

from pathlib import Path
from typing import Any, Sequence

import torch
from torch.export import export

ARM_PROFILES = ("FP", "INT")
# What a model is lowered for: the TOSA reference model alone (TOSAPartitioner),
# or an Ethos-U55 (EthosUPartitioner: what the U55 cannot run stays on the CPU,
# between several delegates; INT only, as the NPU is).
ARM_TARGETS = ("TOSA", "ethos-u55-128")
TOSA_DIR = "tosa"


class ArmConvNet(torch.nn.Module):
    """The design note's toy (shared/design/arm-tosa-in-practice.md): conv2d, relu, flatten, linear."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 16 * 16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def arm_conv_net(seed: int = 0) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    return ArmConvNet().eval(), (torch.randn(1, 3, 16, 16),)


class ArmAttentionBlock(torch.nn.Module):
    """A transformer block (multi-head attention, LayerNorm, a GELU feed-forward) on 1x8x32."""

    def __init__(self) -> None:
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(32, 4, batch_first=True)
        self.norm = torch.nn.LayerNorm(32)
        self.ff = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(x + self.attn(x, x, x, need_weights=False)[0])
        return y + self.ff(y)


def arm_attention_block(seed: int = 1) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    return ArmAttentionBlock().eval(), (torch.randn(1, 8, 32),)


class ArmSmallTransformer(torch.nn.Module):
    """A small transformer: two of the blocks above, then a classifier head on the mean token."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.Sequential(ArmAttentionBlock(), ArmAttentionBlock())
        self.head = torch.nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(x).mean(1))


def arm_small_transformer(seed: int = 4) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    return ArmSmallTransformer().eval(), (torch.randn(1, 8, 32),)


def lower_for_tosa(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    profile: str,
    tosa_dir: Path,
    calibration: Sequence[Sequence[torch.Tensor]] | None = None,
    target: str = "TOSA",
) -> tuple[Any, torch.nn.Module, Any]:
    """Lower ``model`` to TOSA as ExecuTorch's Arm tests do; the Arm backend dumps into ``tosa_dir``.

    ``target`` is one of ``ARM_TARGETS``. Returns the lowered
    ``EdgeProgramManager``, the module the program computes in torch (the
    fake-quantised one for INT), and the float program exported before
    quantisation (None for FP).
    """
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer.arm_quantizer import (
        EthosUQuantizer,
        TOSAQuantizer,
        get_symmetric_quantization_config,
    )
    from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
    from executorch.backends.arm.tosa.partitioner import TOSAPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    if profile not in ARM_PROFILES:
        raise ValueError(f"profile {profile!r}: one of {', '.join(ARM_PROFILES)}")
    if target not in ARM_TARGETS:
        raise ValueError(f"target {target!r}: one of {', '.join(ARM_TARGETS)}")
    if target != "TOSA" and profile != "INT":
        raise ValueError(f"{target} runs the INT profile only")
    tosa_dir.mkdir(parents=True, exist_ok=True)
    # DebugMode.TOSA: each op's ATen node in the op's own location, in each
    # delegate's graph (DebugMode.JSON writes one debug.json per program, each
    # delegate's over the last's).
    if target == "TOSA":
        spec: Any = TosaCompileSpec(f"TOSA-1.0+{profile}")
        make_quantizer, partitioner = TOSAQuantizer, TOSAPartitioner
    else:
        spec = EthosUCompileSpec(target)
        make_quantizer, partitioner = EthosUQuantizer, EthosUPartitioner
    spec = spec.dump_intermediate_artifacts_to(str(tosa_dir)).dump_debug_info(spec.DebugMode.TOSA)
    inputs = tuple(inputs)
    exported = export(model, inputs)
    computed: torch.nn.Module = model
    float_program = None
    if profile == "INT":
        float_program = exported
        quantizer = make_quantizer(spec).set_global(get_symmetric_quantization_config(is_per_channel=True))
        # Without the guards torch.export 2.13 puts in front of a module with
        # shape guards (a call_module the Arm backend's passes refuse: "call_module
        # is not supported" on an attention block).
        prepared = prepare_pt2e(exported.module(check_guards=False), quantizer)
        for sample in calibration or [inputs]:
            prepared(*sample)
        computed = convert_pt2e(prepared)
        exported = export(computed, inputs)
    lowered = to_edge_transform_and_lower(exported, partitioner=[partitioner(spec)], generate_etrecord=True)
    return lowered, computed, float_program


class ArmResidualConvNet(torch.nn.Module):
    """Two convolutions with a residual, a mean and a linear: channels-last
    (NHWC) between the convolutions, with channels, height and width all 8, so
    that only the layout, not the shape, tells NHWC from NCHW."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv1(x))
        y = self.conv2(y) + y
        return self.fc(y.mean((2, 3)))


def arm_residual_conv_net(seed: int = 2) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    return ArmResidualConvNet().eval(), (torch.randn(1, 3, 8, 8),)


class ArmSplitConvNet(torch.nn.Module):
    """Two convolutions with an op between them the Ethos-U55 does not run (a
    sort along the width): lowered for the U55, two NPU delegates and CPU ops
    between them, the partition boundaries in int8 on either side."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv1(x))
        y = torch.sort(y, dim=-1)[0]
        return self.conv2(y)


def arm_split_conv_net(seed: int = 3) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    return ArmSplitConvNet().eval(), (torch.randn(1, 3, 8, 8),)


class ArmMaskedConvNet(torch.nn.Module):
    """Keeps the positions where the channel argmax is past 3: the argmax, the
    comparison and the mask's product stay on the CPU of an Ethos-U55, and the
    first delegate hands the comparison its constant 3 as TOSA's int32 where the
    program reads int64 (a partition boundary whose dtypes disagree)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.fc = torch.nn.Linear(16, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv1(x))
        y = y * (y.argmax(1, keepdim=True) > 3)
        return self.fc(torch.relu(self.conv2(y)).mean((2, 3)))


def arm_masked_conv_net(seed: int = 5) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    return ArmMaskedConvNet().eval(), (torch.randn(1, 3, 12, 12),)


ARM_MODELS = {
    "conv": arm_conv_net,
    "attention": arm_attention_block,
    "residual": arm_residual_conv_net,
    "split": arm_split_conv_net,
    "transformer": arm_small_transformer,
    "masked": arm_masked_conv_net,
}
# The e2e zoo's Arm sessions (python -m gapscope_zoo zoo --model arm): the TOSA
# models in both profiles, written into <model>-<profile>, and the Ethos-U55
# ones (INT) into <model>-u55. (model, profile, target) each.
ZOO_SESSIONS = tuple(
    (model, profile, "TOSA")
    for model in ("conv", "residual", "attention", "transformer")
    for profile in ARM_PROFILES
) + (("split", "INT", "ethos-u55-128"), ("masked", "INT", "ethos-u55-128"))


def write_arm_session(
    directory: str | Path, profile: str, seed: int = 0, model_name: str = "conv", target: str = "TOSA"
) -> Path:
    """Lower a model of ``ARM_MODELS`` for ``profile`` and ``target``, run it on the reference model,
    capture it: one session folder."""
    from gapscope_capture.capture import capture_float_reference, capture_from_etrecord, capture_from_program
    from gapscope_capture.capture_format import write_inputs
    from gapscope_capture.taps import save_outputs
    from gapscope_capture.tosa_run import TOSA_RUN_FILE, program_partition, run_program, write_runs
    from torch.utils._pytree import tree_leaves

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model, inputs = ARM_MODELS[model_name](seed)
    lowered, _, float_program = lower_for_tosa(model, inputs, profile, directory / TOSA_DIR, target=target)
    outputs, runs = run_program(lowered.exported_program(), inputs, tosa_dir=directory / TOSA_DIR)
    write_runs(directory / TOSA_RUN_FILE, runs, program_partition(lowered.exported_program()))

    program = lowered.to_executorch()
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(directory / "etrecord.bin"))
    (directory / "model.pte").write_bytes(program.buffer)
    write_inputs(inputs, directory / "inputs.safetensors")
    # The program's outputs as it ran (the delegate on the reference model): the
    # device's outputs, which Gapscope compares with the reference's.
    save_outputs([tree_leaves(outputs)], directory / "outputs.safetensors")
    capture = capture_from_etrecord(directory / "etrecord.bin")
    capture.fill_quantization(capture_from_program(program))
    capture.write(directory / "capture.gscap.safetensors")
    captures = ["capture.gscap.safetensors"]
    if float_program is not None:
        capture_float_reference(float_program, capture).write(directory / "capture_float.gscap.safetensors")
        captures.append("capture_float.gscap.safetensors")
    write_arm_referee(directory, tree_leaves(outputs), captures)
    return directory


REFEREE_FILE = "executorch_arm_referee.json"


def write_arm_referee(directory: Path, outputs: Sequence[torch.Tensor], captures: Sequence[str]) -> None:
    """ExecuTorch's own Arm test comparison of the program's outputs against each capture's reference outputs.

    ``calculate_rel_frobenius_and_cosine_similarity`` is what ExecuTorch's Arm
    tester reports when a model's TOSA output is compared with its reference
    (backends/arm/test/tester/analyze_output_utils.py): the referee Gapscope's
    program-output numbers (relative L2, cosine) are held to, on the same tensors.
    """
    from executorch.backends.arm.test.tester.analyze_output_utils import (
        calculate_rel_frobenius_and_cosine_similarity,
    )
    from safetensors.torch import load_file

    table: dict[str, Any] = {}
    for name in captures:
        references = load_file(str(directory / name))
        table[name] = []
        for index, output in enumerate(outputs):
            relative, cosine = calculate_rel_frobenius_and_cosine_similarity(
                references[f"reference_outputs/{index}"], output
            )
            table[name].append({"output": index, "relative_frobenius_error": relative, "cosine_similarity": cosine})
    (directory / REFEREE_FILE).write_text(
        json.dumps(
            {
                "referee": "executorch.backends.arm.test.tester.analyze_output_utils."
                "calculate_rel_frobenius_and_cosine_similarity",
                "captures": table,
            },
            indent=1,
        )
        + "\n"
    )


def write_xnnpack_twin(directory: str | Path, model_name: str, seed: int = 0) -> Path:
    """The same model, float, lowered to XNNPACK and run with ETDump: the other
    side of an A/B against an Arm session of it (docs/arm.md)."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from gapscope_capture.capture import capture_from_etrecord, capture_from_program
    from gapscope_capture.host_run import lower_and_run

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model, inputs = ARM_MODELS[model_name](seed)
    program = lower_and_run(directory, export(model, inputs), inputs, [XnnpackPartitioner()], 4 << 20)
    capture = capture_from_etrecord(directory / "etrecord.bin")
    capture.fill_quantization(capture_from_program(program))
    capture.write(directory / "capture.gscap.safetensors")
    return directory
