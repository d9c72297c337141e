"""A float model's values made comparable with a lowered program's: its inputs in
the dtypes the float program was exported with, its outputs in the shapes the
lowered program gives them where only size-1 dimensions differ."""

from __future__ import annotations

import logging
from typing import Any

import torch
from torch.fx import GraphModule

from gapscope_capture.capture_format import CaptureRecord

log = logging.getLogger(__name__)


def in_program_dtypes(graph_module: GraphModule, inputs: list[Any]) -> list[Any]:
    """The inputs in the floating dtypes the float program was exported with: a
    ``model.half()`` program's float16 inputs become float32 for the model before
    ``.half()`` (its fp32 reference, issue 54). Integer inputs and matching dtypes
    are left alone."""
    placeholders = [node for node in graph_module.graph.nodes if node.op == "placeholder"]
    if len(placeholders) != len(inputs):
        return inputs
    converted = []
    for node, value in zip(placeholders, inputs):
        wanted = getattr(node.meta.get("val"), "dtype", None)
        if (
            isinstance(value, torch.Tensor)
            and value.is_floating_point()
            and wanted is not None
            and wanted.is_floating_point
            and value.dtype != wanted
        ):
            log.info("input '%s': %s, given to the float program as %s", node.name, value.dtype, wanted)
            value = value.to(wanted)
        converted.append(value)
    return converted


def drop_unit_dims(float_record: CaptureRecord, quantized: CaptureRecord) -> None:
    """Give a float output the quantised one's shape where the two differ only by
    size-1 dimensions: a backend that runs a linear on 2-D tensors (QNN: [16, 64]
    for the model's [1, 16, 64]) computes the same elements in the same order."""
    for index, (mine, theirs) in enumerate(zip(float_record.outputs, quantized.outputs)):
        if (
            isinstance(mine, torch.Tensor)
            and isinstance(theirs, torch.Tensor)
            and mine.shape != theirs.shape
            and [d for d in mine.shape if d != 1] == [d for d in theirs.shape if d != 1]
        ):
            float_record.outputs[index] = mine.reshape(theirs.shape)
