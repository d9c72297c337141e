"""Capture reference intermediate outputs with ExecuTorch's own machinery: the facade.

Gapscope must compare the device's outputs against exactly what ExecuTorch's
Inspector would use as the AOT side, so the engine (``etrecord_capture``)
reuses the Inspector's building blocks (``IntermediateOutputCapturer``, the
debug-handle-to-op-name helper, debug-handle back-propagation) and mirrors its
reference-graph choice. ``capture_float_reference`` adds a reference ExecuTorch
has no counterpart for: the float model, keyed like a quantised program's
capture; ``capture_from_qnn_debugger`` the one QNN's debugger compares with.

This module only gathers them: each imports the engine, and none imports this
module back (issue 57).
"""

from __future__ import annotations

from gapscope_capture.backend_conventions import QNN_BACKEND, QNN_REFERENCE_GRAPH
from gapscope_capture.etrecord_capture import (
    FLOAT_EXPORTED_PROGRAM,
    CaptureError,
    CaptureResult,
    capture_from_etrecord,
    capture_from_program,
)
from gapscope_capture.reference_graph import (
    EDGE_DIALECT_PROGRAM,
    EXPORTED_PROGRAM,
    FORWARD,
    resolve_reference_graph,
)
from gapscope_capture.float_reference import capture_float_reference
from gapscope_capture.qnn_capture import capture_from_qnn_debugger

__all__ = [
    "EDGE_DIALECT_PROGRAM",
    "EXPORTED_PROGRAM",
    "FLOAT_EXPORTED_PROGRAM",
    "FORWARD",
    "QNN_BACKEND",
    "QNN_REFERENCE_GRAPH",
    "CaptureError",
    "CaptureResult",
    "capture_float_reference",
    "capture_from_etrecord",
    "capture_from_program",
    "capture_from_qnn_debugger",
    "resolve_reference_graph",
]
