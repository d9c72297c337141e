"""Step captures: several executions of a program, its state carried (docs/llm.md).

A decode loop's executions differ by state as well as inputs: its KV cache lives
in buffers that each execution writes. These run the reference graph once per
execution, in order, on one module, so that the buffers carry from each step to
the next as the program's do on the device.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any, Iterator, Sequence

from gapscope_capture.etrecord_capture import (
    FORWARD,
    CaptureError,
    CaptureResult,
    capture_program,
    method_of,
    open_etrecord,
    resolve_reference_graph,
)


def capture_steps_from_etrecord(
    etrecord_path: str | os.PathLike[str],
    steps: Sequence[Sequence[Any]],
    reference_graph: str | None = None,
    method: str = FORWARD,
) -> list[CaptureResult]:
    """Capture several executions of a saved ETRecord's reference graph, in sequence.

    ``steps`` holds each execution's positional inputs, in order. The reference
    graph runs them one after another on one module, so that the buffers it
    mutates (an LLM's KV cache, a counter) carry from each execution to the next
    exactly as the program's do on the device; capture ``k`` is execution ``k``'s
    intermediate outputs and has ``step = k``. ``gapscope-cli compare DIR
    --all-runs`` compares each run of the ETDump with its own step.

    Holds every step in memory: for many steps of a large model, write each as
    it comes with ``iter_steps_from_etrecord``.
    """
    return list(iter_steps_from_etrecord(etrecord_path, steps, reference_graph, method))


def iter_steps_from_etrecord(
    etrecord_path: str | os.PathLike[str],
    steps: Sequence[Sequence[Any]],
    reference_graph: str | None = None,
    method: str = FORWARD,
) -> Iterator[CaptureResult]:
    """``capture_steps_from_etrecord``, one step at a time.

    Each step's capture is yielded as soon as it is made and is not kept: a
    caller that writes it and lets it go holds one step at a time (issue 54: 65
    steps of an 8-layer decoder held together peaked at 9.85 GB, one at 0.89).
    """
    if not steps:
        raise CaptureError("no steps: give each execution's inputs, in order")
    path = Path(etrecord_path)
    etrecord, digest, entries = open_etrecord(path)
    method = method_of(reference_graph, method)
    program, graph_name = resolve_reference_graph(etrecord, reference_graph, method)
    del etrecord  # the module below is all the steps need
    module = program.module()  # one module for every step: its buffers are the state
    del program
    for step, inputs in enumerate(steps):
        result = capture_program(module, list(inputs), reference_graph=graph_name, method=method)
        result.etrecord_sha256 = digest.result()
        result.etrecord_entries_sha256 = entries
        result.step = step
        # The capture runs with autograd on (as ExecuTorch's Inspector does), so a buffer
        # the step wrote now carries its history: the values stay, the history goes.
        for buffer in module.buffers():
            buffer.detach_()
        yield result
        del result
        # Each step's run may leave reference cycles (an interpreter and the
        # values it holds): freed only by the cyclic collector, whose full passes
        # are rare, so 65 steps grew to 4x one step's memory before one came
        # (issue 54, when each step also ran a deep copy). Collected here, memory
        # stays flat.
        gc.collect()
