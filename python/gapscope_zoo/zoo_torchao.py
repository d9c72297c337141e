"""ExecuTorch's own LLM quantisation: a torchao 8da4w decoder on XNNPACK (issue 54).

The recipe ExecuTorch's Llama export ships: ``quantize_(model,
Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
weight_granularity=PerGroup(32)))`` then XNNPACK. Every linear then quantises its
activation at run time (``choose_qparams_affine``, ``quantize_affine``,
``dequantize_affine``) and dequantises its int4 weight, and XNNPACK takes each
such group, with RMSNorm and RoPE around it, into delegates of several outputs.

The session (``write_session``) is the zoo's 2-layer Hugging Face Llama
(``zoo_hf.Llama``), seeded, quantised, lowered and run once, with:

- ``capture.gscap.safetensors``: the ETRecord's reference (ExecuTorch's choice),
  with the device's quantisation filled in;
- ``capture_float.gscap.safetensors``: the float model, exported before
  ``quantize_``, under the quantised program's debug handles
  (``capture_float_reference`` on the quantised program's ATen graph): each
  row's gap then is what int4 weights and int8 activations cost;
- ``executorch_rows_<metric>.json``: ExecuTorch's own rows and comparators, row
  by row (``write_executorch_row_tables``), since its ``calculate_numeric_gap``
  raises on the whole table here (``executorch_error.txt``): a row whose
  comparator raises says so, and Gapscope must show no ExecuTorch number there.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from torch.export import export

from gapscope_zoo import zoo_hf
from gapscope_capture.capture import EXPORTED_PROGRAM, capture_from_etrecord, capture_from_program
from gapscope_capture.float_reference import capture_float_reference
from gapscope_capture.host_run import lower_and_run

log = logging.getLogger(__name__)

VARIANT = "xnnpack"
GROUP_SIZE = 32
DEBUG_BUFFER_SIZE = 4 << 20


def quantize_8da4w(model: torch.nn.Module) -> torch.nn.Module:
    """``model`` quantised in place as ExecuTorch's LLM export does (8-bit dynamic
    activations, 4-bit weights in groups of 32)."""
    from torchao.quantization import quantize_
    from torchao.quantization.granularity import PerGroup
    from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig

    quantize_(
        model,
        Int8DynamicActivationIntxWeightConfig(
            weight_dtype=torch.int4, weight_granularity=PerGroup(GROUP_SIZE)
        ),
    )
    return model


def write_session(directory: Path) -> Path:
    """Quantise, lower, run and capture the 8da4w Llama into ``directory``."""
    from gapscope_zoo.zoo import SEED, write_executorch_row_tables, write_executorch_tables

    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    model = zoo_hf.Llama().eval()
    inputs = zoo_hf.Llama.example()
    float_program = export(model, inputs)  # before quantize_: the float reference
    exported = export(quantize_8da4w(model), inputs)
    program = lower_and_run(directory, exported, inputs, [XnnpackPartitioner()], DEBUG_BUFFER_SIZE)

    capture = capture_from_etrecord(directory / "etrecord.bin")
    capture.fill_quantization(capture_from_program(program))
    capture.write(directory / "capture.gscap.safetensors")
    # The float model's nodes are named as the quantised ATen graph's (quantize_
    # adds ops, it renames none): the float reference is keyed by that graph.
    quantized_aten = capture_from_etrecord(directory / "etrecord.bin", reference_graph=EXPORTED_PROGRAM)
    capture_float_reference(float_program, quantized_aten).write(
        directory / "capture_float.gscap.safetensors"
    )

    try:
        write_executorch_tables(directory)
    except Exception as exc:  # noqa: BLE001 - ExecuTorch's failure is a result to pin
        (directory / "executorch_error.txt").write_text(f"{type(exc).__name__}: {exc}\n")
    write_executorch_row_tables(directory)
    log.info("8da4w written in %.1f s", time.monotonic() - started)
    return directory
