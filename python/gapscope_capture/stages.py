"""Every reference of the stage ladder, from what the user has (issue 59).

Gapscope's stage ladder (``gapscope-cli compare DIR --ladder``, the app's
Stages tab) puts every reference of one run side by side, from the float model
to the device: float model, the ETRecord's ATen graph, its edge graph, the graph
after the backend's passes (QNN's), PT2E's quantised simulation, the host's
kernels without delegates, and the device. ``write_stages`` writes the ones it
can make from an ETRecord, the inputs the device ran on and (optionally) the
float program exported before quantisation, into one folder (``DIR/stages``),
where the ladder finds them:

- ``float.gscap.safetensors``: the float model, keyed like the ATen capture
  (``capture_float_reference``);
- ``aten.gscap.safetensors``: the ETRecord's ``exported_program`` (PT2E's
  quantised simulation for a PT2E program);
- ``edge.gscap.safetensors``: its ``edge_dialect_exported_program``;
- ``backend.gscap.safetensors``: the graph after QNN's passes
  (``edge_after_transform/<method>``), for a program lowered to QNN;
- ``host.gscap.safetensors``: the program without delegates, run on this
  machine's portable and quantised kernels (``host-twin/``, ``write_host_twin``),
  for a program with delegates. ``host-twin/`` is a session of its own, one row
  per op, whose ladder attributes each op's loss where the device's delegate
  logs only its outputs.

The ETRecord is read once. A reference that cannot be made (a graph the
ETRecord lacks, handles that do not propagate back to the ATen graph, a
program the host kernels cannot run) is skipped with the reason, never a stop:
the ladder is built from the others.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from torch.export import ExportedProgram
from torch.fx import GraphModule

from gapscope_capture.backend_conventions import QNN_REFERENCE_GRAPH
from gapscope_capture.capture_format import atomic_output
from gapscope_capture.etrecord_capture import (
    EDGE_DIALECT_PROGRAM,
    EXPORTED_PROGRAM,
    FORWARD,
    CaptureError,
    CaptureResult,
    lowered_to_qnn,
    capture_program,
    inputs_or_representative,
    open_etrecord,
    resolve_reference_graph,
)

log = logging.getLogger(__name__)

STAGES_FOLDER = "stages"
HOST_TWIN_FOLDER = "host-twin"


@dataclass
class StageWritten:
    """One reference of the ladder: its file, or why it was not made."""

    stage: str
    path: Path | None
    skipped: str | None = None


def write_stages(
    etrecord_path: str | Path,
    outdir: str | Path,
    inputs: Sequence[Any] | None = None,
    float_program: ExportedProgram | GraphModule | None = None,
    *,
    method: str = FORWARD,
    host_twin: bool = True,
) -> list[StageWritten]:
    """Write every reference of the ladder that can be made into ``outdir``; returns what was
    written and what was skipped, in ladder order."""
    etrecord_path = Path(etrecord_path)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    etrecord, digest, entries = open_etrecord(etrecord_path)
    model_inputs = list(inputs_or_representative(inputs, etrecord, etrecord_path, method))
    written: list[StageWritten] = []

    def graph(stage: str, name: str) -> CaptureResult | None:
        try:
            program, graph_name = resolve_reference_graph(etrecord, name, method)
        except CaptureError as exc:
            written.append(StageWritten(stage, None, str(exc)))
            return None
        result = capture_program(program.module(), model_inputs, reference_graph=graph_name, method=method)
        result.etrecord_sha256 = digest.result()
        result.etrecord_entries_sha256 = entries
        path = outdir / f"{stage}.gscap.safetensors"
        result.write(path)
        written.append(StageWritten(stage, path))
        return result

    backend_graph = f"{QNN_REFERENCE_GRAPH.split('/', 1)[0]}/{method}"
    aten = edge = backend = None
    if lowered_to_qnn(etrecord):
        # QNN's delegate numbers the ops of its own graph: the ATen and edge
        # graphs' handles would pair other ops with the device's tensors.
        why = "QNN keys the device's tensors by its own graph's handles; the {} graph's would pair other ops"
        written.append(StageWritten("aten", None, why.format("ATen")))
        written.append(StageWritten("edge", None, why.format("edge")))
    else:
        aten = graph("aten", EXPORTED_PROGRAM) if method == FORWARD else None
        edge = graph("edge", EDGE_DIALECT_PROGRAM)
    if backend_graph in (etrecord.graph_map or {}):
        backend = graph("backend", backend_graph)

    if float_program is not None:
        from gapscope_capture.float_reference import capture_float_reference

        keyed_by = aten or edge or backend
        if keyed_by is None:
            written.insert(0, StageWritten("float", None, "no ETRecord graph to key the float model by"))
        else:
            path = outdir / "float.gscap.safetensors"
            capture_float_reference(float_program, keyed_by).write(path)  # on keyed_by's inputs
            written.insert(0, StageWritten("float", path))

    if host_twin and _has_delegates(etrecord, method):
        written.append(_host_kernels(etrecord_path, outdir, model_inputs, float_program))
    return written


def _has_delegates(etrecord: Any, method: str) -> bool:
    delegate_map = getattr(etrecord, "_delegate_map", None) or {}  # no public getter
    return bool(delegate_map.get(method))


def _host_kernels(
    etrecord_path: Path, outdir: Path, inputs: list[Any], float_program: ExportedProgram | GraphModule | None
) -> StageWritten:
    from gapscope_capture.host_twin import HOST_OUTPUTS, write_host_twin

    twin = outdir / HOST_TWIN_FOLDER
    try:
        # With the float model, the twin is itself a session whose ladder runs op by
        # op (float model, quantised simulation, host kernels), where a delegate
        # that logs only its outputs makes the device's one row.
        write_host_twin(etrecord_path, twin, inputs, float_program)
    except CaptureError as exc:
        return StageWritten("host", None, str(exc))
    path = outdir / "host.gscap.safetensors"
    # Copied beside the other references, atomically (the twin keeps its own).
    with atomic_output(path) as tmp:
        shutil.copyfile(twin / HOST_OUTPUTS, tmp)
    return StageWritten("host", path)
