"""Writes tests/data/xnnpack_llama_8w: the zoo's 2-layer Hugging Face Llama with torchao
weight-only int8 (``IntxWeightOnlyConfig(weight_dtype=torch.int8,
granularity=PerAxis(0))``: fp32 activations, per-channel int8 weights) on XNNPACK,
run once, with the ETRecord's reference, the float model's reference
(capture_float.gscap.safetensors) and ExecuTorch's rows and comparators row by row
(zoo_torchao.write_session with this quantiser).

ExecuTorch 1.5.1 runs every such linear without its weight's scales: one
weight-only Linear(64, 48) returns about 1/scale (~1000) times the reference
(issue 54, docs/llm.md). The fixture pins that Gapscope's first divergence is the
first delegate holding a weight-only linear, against either reference.

usage: PYTHONPATH=python python xnnpack_llama_8w.py OUTDIR   (in a venv with the exporter, torch 2.13.0,
executorch 1.5.1, torchao, transformers). The model file is not kept.
"""
import sys
from pathlib import Path

import torch

import gapscope_zoo.zoo_torchao as zoo_torchao


def quantize_8w(model: torch.nn.Module) -> torch.nn.Module:
    from torchao.quantization import quantize_
    from torchao.quantization.granularity import PerAxis
    from torchao.quantization.quant_api import IntxWeightOnlyConfig

    quantize_(model, IntxWeightOnlyConfig(weight_dtype=torch.int8, granularity=PerAxis(0)))
    return model


out = Path(sys.argv[1]) / "xnnpack_llama_8w"
zoo_torchao.quantize_8da4w = quantize_8w  # the session writer's quantiser, swapped
zoo_torchao.DEBUG_BUFFER_SIZE = 1 << 20  # what the run writes, with room; keeps the fixture small
zoo_torchao.write_session(out)
(out / "model.pte").unlink()
print("ok")
