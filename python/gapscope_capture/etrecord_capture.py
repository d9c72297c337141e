"""The capture engine: reference intermediate outputs with ExecuTorch's own machinery.

``gapscope_capture.capture`` is the facade users import; this module, the
float reference (``float_reference``), QNN's (``qnn_capture``), the steps
(``steps``) and the host twin (``host_twin``) build on this one, which imports
none of them (issue 57: no import cycle).

Gapscope must compare the device's outputs against exactly what ExecuTorch's
Inspector would use as the AOT side, so this module reuses the Inspector's
building blocks (``IntermediateOutputCapturer``, the debug-handle-to-op-name
helper, debug-handle back-propagation) and mirrors its reference-graph choice.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from executorch.devtools.etrecord import ETRecord
from executorch.devtools.inspector._inspector_utils import (
    NodeFilter,
    get_aot_debug_handle_to_op_name_mapping,
)
from executorch.devtools.inspector._intermediate_output_capturer import (
    IntermediateOutputCapturer,
)
from executorch.exir import EdgeProgramManager, ExecutorchProgramManager
from torch.export import ExportedProgram
from torch.fx import GraphModule, Node
from torch import Tensor
from torch.utils._pytree import tree_leaves, tree_map

from gapscope_capture.capture_errors import CaptureError
from gapscope_capture.capture_format import CaptureRecord, TapRecord, write_capture
from gapscope_capture.backend_conventions import QNN_REFERENCE_GRAPH
from gapscope_capture.etrecord_digest import etrecord_entries_sha256, file_sha256
from gapscope_capture.etrecord_reader import read_etrecord
from gapscope_capture.reference_graph import (  # noqa: F401  re-exported: the steps, stages and taps use them
    EDGE_DIALECT_PROGRAM,
    EXPORTED_PROGRAM,
    FORWARD,
    lowered_to_qnn,
    method_of,
    resolve_reference_graph,
)
from gapscope_capture.provenance import node_provenance
from gapscope_capture.quantization import output_axis_order, output_quantization

log = logging.getLogger(__name__)

FLOAT_EXPORTED_PROGRAM = "float_exported_program"

DebugHandle = tuple[int, ...]


@dataclass
class CaptureResult:
    """Everything a capture file holds, before it is written."""

    records: list[CaptureRecord]
    inputs: list[Any]
    reference_outputs: list[Any]
    reference_graph: str | None
    method: str
    etrecord_sha256: str | None
    # Every record's axis_order comes from the graph the backend lowered (see write_capture).
    layout_recorded: bool = False
    # The execution this capture is of, in a sequence (capture_steps_from_etrecord).
    step: int | None = None
    # Which of reference_outputs are ExecuTorch's intermediate-output taps (taps.capture_taps).
    taps: list[TapRecord] = field(default_factory=list)
    # The ETRecord's table of contents (etrecord_entries_sha256), beside the file's SHA-256.
    etrecord_entries_sha256: str | None = None
    # Each captured graph node's op kind and from_node chain (float_reference.node_provenance),
    # in memory only, never written: capture_float_reference finds each op's float
    # counterpart by it (names alone are renumbered when the quantiser removes nodes).
    provenance: dict[str, tuple[str, tuple[str, ...]]] | None = field(
        default=None, repr=False, compare=False
    )

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write this capture to ``path`` in the AOT capture format."""
        write_capture(
            path,
            self.records,
            inputs=self.inputs,
            reference_outputs=self.reference_outputs,
            reference_graph=self.reference_graph,
            method=self.method,
            etrecord_sha256=self.etrecord_sha256,
            etrecord_entries_sha256=self.etrecord_entries_sha256,
            layout_recorded=self.layout_recorded,
            step=self.step,
            taps=self.taps,
        )

    def fill_quantization(self, source: "CaptureResult") -> int:
        """Take quantisation and ``axis_order`` this capture lacks from ``source``.

        A saved ETRecord drops custom node metadata (QNN's ``quant_attrs`` and
        ``axis_order``), which the in-memory program still has; records are
        matched by debug handle and output count. Returns how many records
        gained information.
        """
        by_handle = {record.debug_handle: record for record in source.records}
        filled = 0
        for record in self.records:
            other = by_handle.get(record.debug_handle)
            if other is None or len(other.outputs) != len(record.outputs):
                continue
            changed = False
            if other.quantization is not None:
                mine = record.quantization or [None] * len(record.outputs)
                merged = [m if m is not None else t for m, t in zip(mine, other.quantization)]
                if merged != mine:
                    record.quantization = merged
                    changed = True
            if record.axis_order is None and other.axis_order is not None:
                record.axis_order = list(other.axis_order)
                changed = True
            filled += changed
        return filled


def capture_from_etrecord(
    etrecord_path: str | os.PathLike[str],
    inputs: Sequence[Any] | None = None,
    reference_graph: str | None = None,
    method: str = FORWARD,
) -> CaptureResult:
    """Capture the reference graph of a saved ETRecord, as the Inspector would.

    ``inputs`` default to the ETRecord's representative inputs (``forward``)
    or the method's export example inputs; the reference graph is chosen by
    ``resolve_reference_graph``. ``method`` picks one method of a
    multi-method program: debug handles are numbered per method, so each
    method needs its own capture.
    """
    return capture_etrecord_graph(etrecord_path, inputs, reference_graph, method)[0]


def capture_etrecord_graph(
    etrecord_path: str | os.PathLike[str],
    inputs: Sequence[Any] | None = None,
    reference_graph: str | None = None,
    method: str = FORWARD,
    progress: Callable[[str, float], None] | None = None,
) -> tuple[CaptureResult, ExportedProgram]:
    """``capture_from_etrecord``, and the ETRecord program it captured (with the
    debug handles the capture keyed it by). ``progress(stage, fraction)`` hears
    each stage, and the run node by node, up to 0.9 of the whole."""
    path = Path(etrecord_path)
    report = progress or (lambda stage, fraction: None)
    report("reading the ETRecord", 0.02)
    etrecord, digest, entries = open_etrecord(path)
    report("reading the reference graph", 0.05)
    if reference_graph is None and lowered_to_qnn(etrecord):
        # QNN's delegate_map handles are those of the graph it lowered, not the ATen
        # program's: without this choice every row would pair different ops.
        reference_graph = QNN_REFERENCE_GRAPH
        log.warning(
            "%s: lowered to QNN; capturing '%s' (the QNN debugger's reference). A saved "
            "ETRecord drops QNN's quant_attrs and axis_order: quantised or channels-last "
            "device tensors will be refused; capture with capture_from_qnn_debugger instead",
            path,
            QNN_REFERENCE_GRAPH,
        )
    method = method_of(reference_graph, method)
    program, graph_name = resolve_reference_graph(etrecord, reference_graph, method)
    module = program.module()
    report("running the reference graph", 0.4)
    result = capture_program(
        module,
        inputs_or_representative(inputs, etrecord, path, method),
        reference_graph=graph_name,
        method=method,
        progress=lambda done: report("running the reference graph", 0.4 + 0.5 * done),
    )
    result.etrecord_sha256 = digest.result()
    result.etrecord_entries_sha256 = entries
    return result, program


def capture_from_program(
    program: ETRecord | ExecutorchProgramManager | EdgeProgramManager | ExportedProgram | GraphModule,
    inputs: Sequence[Any] | None = None,
    *,
    reference_graph: str | None = None,
    method: str = FORWARD,
) -> CaptureResult:
    """Capture an in-memory program, e.g. the one just lowered, with its node metadata intact.

    - ``ETRecord``, ``ExecutorchProgramManager`` or ``EdgeProgramManager`` made
      with ``generate_etrecord=True``: the reference graph is resolved from the
      ETRecord as ``capture_from_etrecord`` does (for ``method``), and
      ``inputs`` default to its representative inputs. Like the Inspector, the
      default choice propagates debug handles into the ETRecord's ATen program.
    - ``EdgeProgramManager`` without an ETRecord: ``exported_program(method)``.
      Pass it before partitioning: a lowered program's delegated part is one
      opaque call.
    - ``ExportedProgram`` (with debug handles, i.e. edge dialect) or a
      ``GraphModule``: captured as given; ``method`` is only recorded.

    Quantisation parameters and ``axis_order`` are read from the graph's nodes
    (see ``quantization.output_quantization``). The capture's
    ``reference_graph`` is ``None``: the graph lives in memory only.
    """
    etrecord = _etrecord_of(program)
    if etrecord is not None:
        method = method_of(reference_graph, method)
        resolved, graph_name = resolve_reference_graph(etrecord, reference_graph, method)
        graph_module = resolved.module()
        model_inputs = inputs_or_representative(inputs, etrecord, "the in-memory ETRecord", method)
    else:
        if reference_graph is not None:
            raise CaptureError(
                "reference_graph selects a graph of an ETRecord; this program has no ETRecord"
            )
        if isinstance(program, EdgeProgramManager):
            program = program.exported_program(method)
        graph_module = program.module() if isinstance(program, ExportedProgram) else program
        if not isinstance(graph_module, GraphModule):
            raise CaptureError(f"cannot capture a {type(program).__name__}")
        if inputs is None:
            raise CaptureError("this program carries no representative inputs: pass inputs")
        model_inputs = list(inputs)
    result = capture_program(graph_module, model_inputs, reference_graph=None, method=method)
    # An in-memory graph keeps its node metadata, axis_order included.
    result.layout_recorded = etrecord is None
    return result


def capture_program(
    graph_module: GraphModule,
    inputs: Sequence[Any],
    *,
    reference_graph: str | None,
    method: str,
    progress: Callable[[float], None] | None = None,
) -> CaptureResult:
    flat_inputs = tree_leaves(list(inputs))
    try:
        # Not under torch.no_grad(): ExecuTorch's Inspector runs the capturer with
        # autograd on, and some kernels differ with it (aten.lstm's output by
        # ~1e-7), so ExecuTorch's numbers would no longer be reproducible.
        # The outputs are the capturing run's own: the step the intermediates show,
        # also for a model that updates its buffers (a counter, a cache). Issue 60:
        # they came from a second run on a deep copy, which was a fifth of a capture.
        capturer = _CapturerKeepingOutputs(graph_module, progress)
        captured = capturer.run_and_capture(*flat_inputs)
        outputs = capturer.outputs
    except Exception as exc:  # the graph rejects these inputs (count, shape, dtype)
        raise CaptureError(
            f"running the reference graph on the inputs failed: {type(exc).__name__}: {exc}"
        ) from exc
    # Autograd stays on for the run (above), but what is kept is values: a
    # tensor with a grad_fn holds its whole graph's saved inputs alive.
    captured = {key: _detached(value) for key, value in captured.items()}
    outputs = _detached(outputs)
    records = _records(graph_module, captured)
    if not records:
        raise CaptureError(
            "no node of the reference graph has a debug handle: capture an edge dialect "
            "program or an ETRecord, not a plain torch.export program"
        )
    return CaptureResult(
        records=records,
        inputs=flat_inputs,
        reference_outputs=tree_leaves(outputs),
        reference_graph=reference_graph,
        method=method,
        etrecord_sha256=None,
        provenance=node_provenance(graph_module),
    )


class _CapturerKeepingOutputs(IntermediateOutputCapturer):
    """ExecuTorch's capturer, which drops the graph's outputs, keeping them, and
    telling ``progress`` the share of nodes run (every 64th node)."""

    outputs: Any = None

    def __init__(self, module: GraphModule, progress: Callable[[float], None] | None = None) -> None:
        super().__init__(module)
        self._progress = progress
        self._nodes = max(1, len(module.graph.nodes))
        self._done = 0

    def run(self, *args: Any, **kwargs: Any) -> Any:
        # run_and_capture has set run_node to its capturing function: counted around it.
        capturing = self.run_node

        def counted(n: Node) -> Any:
            self._done += 1
            if self._progress is not None and self._done % 64 == 0:
                self._progress(self._done / self._nodes)
            return capturing(n)

        self.run_node = counted
        try:
            self.outputs = super().run(*args, **kwargs)
        finally:
            self.run_node = capturing
        return self.outputs


def _detached(value: Any) -> Any:
    """``value`` with every tensor in it detached from autograd (the same values)."""
    return tree_map(lambda v: v.detach() if isinstance(v, Tensor) else v, value)


def _records(graph_module: GraphModule, captured: dict[DebugHandle, Any]) -> list[CaptureRecord]:
    """Records in graph execution order, one per captured key.

    Keys holding a handle below 1 are dropped: back-propagation marks ATen
    nodes that have no edge counterpart with ``UNSET_DEBUG_HANDLE`` (0), and
    no runtime event can refer to them.
    """
    op_names = get_aot_debug_handle_to_op_name_mapping(graph_module)
    nodes = captured_nodes(graph_module)
    records = []
    for key, ops in op_names.items():  # built in graph order, like the capture dict
        if key not in captured or min(key) < 1:
            continue
        record = CaptureRecord.from_intermediate_output(
            key, captured[key], ops, {node.name: node.meta.get("stack_trace") for node in nodes[key]}
        )
        annotate_record(record, nodes[key][-1], graph_module)  # the capture keeps the last value
        records.append(record)
    return records


def annotate_record(record: CaptureRecord, stored: Node, graph_module: GraphModule) -> None:
    """Set the quantisation and ``axis_order`` of ``record`` from the node whose value it holds."""
    quantization = output_quantization(stored, graph_module, len(record.outputs), record.sequence)
    record.quantization = quantization if any(q is not None for q in quantization) else None
    record.axis_order = output_axis_order(stored, record.sequence)


def captured_nodes(graph_module: GraphModule) -> dict[DebugHandle, list[Node]]:
    """Nodes per debug-handle key, selected with the capturer's own node filter."""
    node_filter = NodeFilter("debug_handle", "call_function", exclude_ops=["getitem"])
    result: dict[DebugHandle, list[Node]] = {}
    for node in graph_module.graph.nodes:
        if node_filter.matches(node):
            handle = node.meta["debug_handle"]
            key = (handle,) if isinstance(handle, int) else tuple(handle)
            result.setdefault(key, []).append(node)
    return result


def _etrecord_of(program: Any) -> ETRecord | None:
    if isinstance(program, ETRecord):
        return program
    if isinstance(program, ExecutorchProgramManager):
        try:
            return program.get_etrecord()
        except RuntimeError as exc:
            raise CaptureError(
                "this ExecuTorch program has no ETRecord: lower it with generate_etrecord=True"
            ) from exc
    if isinstance(program, EdgeProgramManager):
        return program._etrecord  # set by to_edge*(generate_etrecord=True); no public getter
    return None


def inputs_or_representative(
    inputs: Sequence[Any] | None,
    etrecord: ETRecord,
    source: str | os.PathLike[str],
    method: str = FORWARD,
) -> list[Any]:
    if inputs is not None:
        return list(inputs)
    if method != FORWARD:
        # Representative inputs are forward's; the method's export example is the next best.
        programs = etrecord.edge_dialect_program
        example = programs[method].example_inputs if isinstance(programs, dict) else None
        if not example:
            raise CaptureError(f"{source}: no inputs for method '{method}'; give them explicitly")
        log.warning("%s: capturing '%s' on its export example inputs", source, method)
        args, kwargs = example
        return list(args) + list(kwargs.values())
    # The Inspector reads this same private attribute; ETRecord has no getter.
    representative = etrecord._representative_inputs
    if representative is None:
        raise CaptureError(
            f"{source}: the ETRecord has no representative inputs; give the inputs explicitly"
        )
    return list(representative)


def open_etrecord(path: Path, hash_file: bool = True) -> tuple[ETRecord, Future[str] | None, str]:
    """The ETRecord at ``path``, its SHA-256 and its entries' SHA-256, or a CaptureError worded for the user.

    The file's SHA-256 is computed on a thread of its own while the programs are
    deserialised and run (``hashlib`` lets go of the GIL): ``.result()`` it when
    writing. The programs are deserialised when first used (``read_etrecord``).
    """
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise CaptureError(f"{path}: cannot read the ETRecord: {exc.strerror or exc}") from exc
    try:
        etrecord = read_etrecord(str(path))
        entries = etrecord_entries_sha256(path)
    except CaptureError:
        raise
    except Exception as exc:  # the reader raises bare RuntimeError/KeyError/… for bad files
        raise CaptureError(f"{path}: not a readable ETRecord: {exc}") from exc
    digest = None
    if hash_file:
        digest = Future()
        threading.Thread(target=_hash_into, args=(path, digest), daemon=True).start()
    return etrecord, digest, entries


def _hash_into(path: Path, digest: Future) -> None:
    try:
        digest.set_result(file_sha256(path))
    except OSError as exc:
        digest.set_exception(
            CaptureError(f"{path}: cannot read the ETRecord: {exc.strerror or exc}")
        )
