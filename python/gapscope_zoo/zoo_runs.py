"""Zoo sessions with several executions in one ETDump (issue 23).

- ``multirun``: the zoo's decoder block, stateless, lowered to XNNPACK fp32 and run
  6 times on 6 different inputs. The capture is of the first inputs. A delegate
  call logs its inputs, so the dump shows which run had the capture's inputs.
- ``decode-loop``: a single-head attention decoder with a KV cache in mutable
  buffers, run as an LLM decodes: 17 executions, one token each (a prefill of the
  first token, then 16 steps), each writing its key and value at its position.
  Captured step by step (``capture_steps_from_etrecord``): one capture per
  execution, the cache carried from each to the next as on the device; and once
  as a single capture of the first execution, as a user without steps would.
- ``decode-loop/int8``: the same decoder quantised with PT2E (XNNPACK's
  symmetric int8 config, calibrated on the loop's own tokens) and run on
  ExecuTorch's portable and quantised kernels, the same 17 executions. Each
  step's capture is the *float* model's (``capture_float_reference``) under the
  quantised program's handles, one float module carrying its cache from step to
  step: every row then shows the whole int8 error at that step, and the steps
  view where it grows (issue 25).
- ``decode-loop/8da4w``: the same decoder in torchao 8da4w on XNNPACK, 5
  executions, each step's capture the float model's (issue 54).

Both are lowered with an ETRecord and run with ETDump at intermediate-output level; Gapscope must say which run it compares and, for the
decode loop, that a later execution's state is not the capture's.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge_transform_and_lower
from executorch.extension.pybindings.portable_lib import _load_for_executorch
from torch.export import export

from gapscope_capture.capture import capture_from_etrecord
from gapscope_capture.steps import capture_steps_from_etrecord
from gapscope_capture.capture_format import step_capture_name

SEED = 0
EXECUTIONS = 6
DECODE_STEPS = 16
DEBUG_BUFFER_SIZE = 1 << 20


class KvDecoder(torch.nn.Module):
    """One attention head over a KV cache held in buffers, one token per execution."""

    def __init__(self, dim: int = 16, positions: int = DECODE_STEPS + 1) -> None:
        super().__init__()
        self.q = torch.nn.Linear(dim, dim, bias=False)
        self.k = torch.nn.Linear(dim, dim, bias=False)
        self.v = torch.nn.Linear(dim, dim, bias=False)
        self.out = torch.nn.Linear(dim, dim, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, positions, dim))
        self.register_buffer("v_cache", torch.zeros(1, positions, dim))
        self.register_buffer("slots", torch.arange(positions))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.k_cache.index_copy_(1, pos, self.k(x))
        self.v_cache.index_copy_(1, pos, self.v(x))
        scores = self.q(x) @ self.k_cache.transpose(1, 2) / math.sqrt(x.shape[-1])
        scores = scores.masked_fill(self.slots > pos, float("-inf"))
        return self.out(torch.softmax(scores, dim=-1) @ self.v_cache)


def write_multirun(directory: Path) -> Path:
    """The decoder block run EXECUTIONS times on different inputs in one ETDump."""
    from gapscope_zoo.zoo import DecoderBlock

    torch.manual_seed(SEED)
    model = DecoderBlock().eval()
    runs = [DecoderBlock.example() for _ in range(EXECUTIONS)]
    return _lower_run_capture(directory, model, runs, [XnnpackPartitioner()])


def write_decode_loop(directory: Path, decode_steps: int = DECODE_STEPS) -> Path:
    """The KV-cache decoder run for a prefill token and ``decode_steps`` steps in one ETDump."""
    torch.manual_seed(SEED)
    model = KvDecoder(positions=decode_steps + 1).eval()
    steps = [(torch.randn(1, 1, 16), torch.tensor([t])) for t in range(decode_steps + 1)]
    _lower_run_capture(directory, model, steps, [])  # capture.gscap.safetensors: step 0 only, no step
    for result in capture_steps_from_etrecord(directory / "etrecord.bin", steps):
        result.write(directory / step_capture_name(result.method, result.step))
    return directory


def write_decode_loop_int8(directory: Path, decode_steps: int = DECODE_STEPS) -> Path:
    """The decode loop in int8 on portable kernels, each step against the float model's own step."""
    import executorch.kernels.quantized  # noqa: F401 - the quantize/dequantize kernels
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from gapscope_capture.float_reference import capture_float_reference

    torch.manual_seed(SEED)
    model = KvDecoder(positions=decode_steps + 1).eval()
    steps = [(torch.randn(1, 1, 16), torch.tensor([t])) for t in range(decode_steps + 1)]
    # An untouched copy: its cache starts empty.
    float_module = export(KvDecoder(positions=decode_steps + 1).eval(), steps[0]).module()
    float_module.load_state_dict(model.state_dict())
    prepared = prepare_pt2e(
        export(model, steps[0]).module(), XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
    )
    with torch.no_grad():
        for inputs in steps:
            prepared(*inputs)
    quantized = convert_pt2e(prepared)
    # Calibration ran the loop, so the cache holds its last tokens: the program starts empty.
    for name, buffer in quantized.named_buffers():
        if "cache" in name:
            buffer.zero_()
    _lower_run_capture(directory, quantized, steps, [], capture=False)
    quantized_steps = capture_steps_from_etrecord(directory / "etrecord.bin", steps)
    for step, (quantized_step, inputs) in enumerate(zip(quantized_steps, steps)):
        reference = capture_float_reference(float_module, quantized_step, inputs)
        reference.step = step
        reference.write(directory / step_capture_name(reference.method, step))
    return directory


def write_decode_loop_8da4w(directory: Path, decode_steps: int = 4) -> Path:
    """The decode loop in torchao 8da4w on XNNPACK (issue 54), each step against the
    float model's own step: the recipe ExecuTorch's LLM export ships, as it decodes.

    32 wide, in groups of 32 (XNNPACK takes no smaller group). The step captures are the float model's, as in ``write_decode_loop_int8``;
    ``capture.gscap.safetensors`` is the ETRecord's reference of the first step.
    """
    from torchao.quantization import quantize_
    from torchao.quantization.granularity import PerGroup
    from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig

    from gapscope_capture.float_reference import capture_float_reference

    torch.manual_seed(SEED)
    model = KvDecoder(dim=32, positions=decode_steps + 1).eval()
    steps = [(torch.randn(1, 1, 32), torch.tensor([t])) for t in range(decode_steps + 1)]
    float_module = export(KvDecoder(dim=32, positions=decode_steps + 1).eval(), steps[0]).module()
    float_module.load_state_dict(model.state_dict())
    quantize_(
        model,
        Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(32)),
    )
    _lower_run_capture(directory, model, steps, [XnnpackPartitioner()], capture=False)
    quantized_steps = capture_steps_from_etrecord(
        directory / "etrecord.bin", steps, reference_graph="exported_program"
    )
    for step, (quantized_step, inputs) in enumerate(zip(quantized_steps, steps)):
        reference = capture_float_reference(float_module, quantized_step, inputs)
        reference.step = step
        reference.write(directory / step_capture_name(reference.method, step))
    return directory


def _lower_run_capture(
    directory: Path,
    model: torch.nn.Module,
    runs: list[tuple[torch.Tensor, ...]],
    partitioners: list,
    capture: bool = True,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        exported = export(model, runs[0])
    program = to_edge_transform_and_lower(
        exported, partitioner=partitioners, generate_etrecord=True
    ).to_executorch()
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(runs[0])
    etrecord.save(str(directory / "etrecord.bin"))
    (directory / "model.pte").write_bytes(program.buffer)
    runtime = _load_for_executorch(
        str(directory / "model.pte"), enable_etdump=True, debug_buffer_size=DEBUG_BUFFER_SIZE
    )
    for inputs in runs:
        runtime.forward(inputs)
    runtime.write_etdump_result_to_file(str(directory / "run.etdp"), str(directory / "run.debug.bin"))
    if capture:  # of the first execution: the ETRecord's representative inputs
        capture_from_etrecord(directory / "etrecord.bin").write(directory / "capture.gscap.safetensors")
    return directory
