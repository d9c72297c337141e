"""Every op's output of the TOSA graphs of a program, run on the TOSA reference model, exactly (issue 61).

ExecuTorch's Arm backend lowers each delegated subgraph to one TOSA flatbuffer
(``output_tag<N>_TOSA-1.0+FP.tosa`` or ``+INT``, written where the compile
spec's ``dump_intermediate_artifacts_to`` points). With
``dump_debug_info(DebugMode.TOSA)`` it puts into each non-constant op's
``location`` the entry of its debug schema that ties the op to the ATen node it
was lowered from (``backends/arm/debug/schema.py``; docs/arm.md); that mode,
not ``DebugMode.JSON``, is read, because the JSON mode writes one
``debug.json`` for all of a program's delegates, each delegate's over the last
one's. ExecuTorch's Arm tests run such a graph with
``tosa_reference_model.run`` and compare its graph outputs; the reference
model's own ``dump_intermediates`` writes the other tensors only as text, in 5
or 9 printed digits. Here the graph is rewritten so that every non-constant
op's output is also a graph output (flatc, from tosa-tools, to JSON and back:
nothing else of the graph changes), then run the same way, so each op's
tensor comes back as the reference model computed it, bit for bit.

The runs of one program (one per delegate call, in call order) are written
together as ``tosa_run.safetensors`` (``write_runs``): one tensor per op
output, named by the delegate's prefix and its TOSA tensor name, in the dtype
the reference model returned (int8 and int32 stay integers: the reader
dequantises them), and a ``gapscope.tosa_run`` metadata document
(docs/formats/tosa-run.md) listing each delegate's ops in graph order with
their debug entries.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import tempfile
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gapscope_capture import __version__
from gapscope_capture.capture_format import atomic_output

TOSA_RUN_FORMAT = "gapscope.tosa_run"
TOSA_RUN_VERSION = 2
TOSA_RUN_FILE = "tosa_run.safetensors"

# Ops whose outputs are constants of the graph, not computed from its inputs.
_CONSTANT_OPS = frozenset({"CONST", "CONST_SHAPE"})


class TosaRunError(RuntimeError):
    """The TOSA graph could not be rewritten or run; the message says which file and why."""


@dataclass(frozen=True)
class TosaOp:
    """One non-constant op of the graph, in graph order."""

    index: int  # its place among the block's operators (constants included)
    op: str  # the TOSA op ("CONV2D", "RESCALE")
    output: str  # its output tensor's name: its debug entry's tosa_info.node_name
    dtype: str  # the output's TOSA type ("FP32", "INT8", "INT32")
    shape: tuple[int, ...]
    inputs: tuple[str, ...]
    # A TRANSPOSE's permutation (its TransposeAttribute): how a reader tells
    # each tensor's layout against torch's (NHWC around convolutions).
    perms: tuple[int, ...] | None = None
    # The Arm backend's debug entry for the op (its location, DebugMode.TOSA),
    # with ``tosa_info`` filled from the op as DebugMode.JSON fills it; None
    # when the graph was lowered without it.
    debug: dict[str, Any] | None = None


@dataclass
class TosaRun:
    """The reference model's tensors of one run of one delegate's graph, by TOSA tensor name."""

    tosa_name: str  # the graph's file name (output_tag0_TOSA-1.0+INT.tosa)
    tosa_sha256: str  # of the graph as lowered, before it was rewritten
    ops: list[TosaOp]
    graph_inputs: list[str]
    graph_outputs: list[str]
    tensors: dict[str, np.ndarray]  # each op's output, by its tensor name
    inputs: dict[str, np.ndarray]  # what the graph was run with, by input name
    backend: str = "TOSABackend"  # the delegate's backend id (EthosUBackend for an Ethos-U program)
    graph_input_types: list[str] = field(default_factory=list)  # the graph's declared input types ("INT8")
    # The graph's declared output types: an output may be a constant of the
    # graph (a folded ``full``), which no op computes.
    graph_output_types: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ProgramPartition:
    """Where a lowered program's delegates meet the ops it leaves on the CPU, from its graph.

    ``cpu_ops``: each call_function node outside the delegates (``getitem``
    aside), ``{"node", "target"}`` in graph order. ``calls``: per delegate call
    in graph order (which is call order), its node and, per input, the
    program's dtype there and the node making it (None: the program's input);
    per output, the program's dtype and the nodes reading it.
    """

    cpu_ops: list[dict[str, str]]
    calls: list[dict[str, Any]]


def program_partition(program: Any) -> ProgramPartition:
    """The partition of ``program`` (the lowered ``ExportedProgram``), read from its graph."""
    import operator

    import torch

    def named(node: Any) -> dict[str, str]:
        return {"node": node.name, "target": _target_name(node.target)}

    def dtype(node: Any) -> str:
        value = node.meta.get("val")
        return str(value.dtype).removeprefix("torch.") if isinstance(value, torch.Tensor) else ""

    cpu_ops: list[dict[str, str]] = []
    calls: list[dict[str, Any]] = []
    delegate = torch._higher_order_ops.executorch_call_delegate
    for node in program.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        if node.target is not delegate:
            cpu_ops.append(named(node))
            continue
        outputs: dict[int, Any] = {
            user.args[1]: user for user in node.users if user.target is operator.getitem
        }
        calls.append(
            {
                "node": node.name,
                "inputs": [
                    {"dtype": dtype(arg), "from": None if arg.op == "placeholder" else named(arg)}
                    for arg in node.args[1:]
                ],
                "outputs": [
                    {
                        "dtype": dtype(outputs[i]) if i in outputs else "",
                        "to": [named(u) for u in outputs[i].users if u.op == "call_function"] if i in outputs else [],
                        "program_output": i in outputs and any(u.op == "output" for u in outputs[i].users),
                    }
                    for i in range(max(outputs, default=-1) + 1)
                ],
            }
        )
    return ProgramPartition(cpu_ops=cpu_ops, calls=calls)


def _target_name(target: Any) -> str:
    """A node's target as torch.export serialises it ("executorch.exir.dialects.edge.ops.aten.sort.default")."""
    import torch

    op = getattr(target, "_op", target)  # an Edge op wraps torch's OpOverload
    if isinstance(op, torch._ops.OpOverload):
        where = "executorch.exir.dialects.edge.ops." if op is not target else "torch.ops."
        return f"{where}{op._schema.name.replace('::', '.')}.{op._overloadname}"
    return f"{getattr(target, '__module__', '')}.{getattr(target, '__name__', str(target))}"


def write_runs(path: str | Path, runs: Sequence[TosaRun], partition: ProgramPartition) -> None:
    """Write ``tosa_run.safetensors`` (atomically): the runs of a program's delegate calls, in call order,
    with the program's ``partition`` (``program_partition``) of the same calls.

    Each run's tensors are stored under ``d<k>/`` (two delegates name their
    tensors alike); every op must carry its debug entry (lower with
    ``dump_debug_info(DebugMode.TOSA)``), or no reader can tie it to a node.
    """
    from safetensors.numpy import save_file

    if not runs:
        raise TosaRunError(f"{path}: no delegate call ran, so there is no TOSA run to write")
    if len(partition.calls) != len(runs):
        raise TosaRunError(f"{path}: the program has {len(partition.calls)} delegate calls, {len(runs)} ran")
    delegates = []
    tensors: dict[str, np.ndarray] = {}
    for k, run in enumerate(runs):
        missing = [op.output for op in run.ops if op.debug is None]
        if missing:
            raise TosaRunError(
                f"{run.tosa_name}: {len(missing)} ops have no debug entry (first {missing[0]}): "
                "lower with dump_debug_info(DebugMode.TOSA)"
            )
        prefix = f"d{k}/"
        delegates.append(
            {
                "backend": run.backend,
                "tosa_file": {"name": run.tosa_name, "sha256": run.tosa_sha256},
                "tensor_prefix": prefix,
                "graph_inputs": run.graph_inputs,
                "graph_input_types": run.graph_input_types,
                "graph_outputs": run.graph_outputs,
                "graph_output_types": run.graph_output_types,
                "call": partition.calls[k],
                "ops": [
                    {
                        "index": op.index,
                        "op": op.op,
                        "output": op.output,
                        "dtype": op.dtype,
                        "shape": list(op.shape),
                        "inputs": list(op.inputs),
                        **({"perms": list(op.perms)} if op.perms is not None else {}),
                    }
                    for op in run.ops
                ],
                "debug": [op.debug for op in run.ops],
            }
        )
        for name, array in {**run.inputs, **run.tensors}.items():
            tensors[prefix + name] = np.ascontiguousarray(array)
    document = {
        "format": TOSA_RUN_FORMAT,
        "version": TOSA_RUN_VERSION,
        "producer": _producer_versions(),
        "cpu_ops": partition.cpu_ops,
        "delegates": delegates,
    }
    with atomic_output(path) as tmp:
        save_file(tensors, str(tmp), metadata={TOSA_RUN_FORMAT: json.dumps(document)})


def run_every_op(tosa: bytes, inputs: Sequence[np.ndarray], name: str = "graph.tosa") -> TosaRun:
    """Run the TOSA graph ``tosa`` on the TOSA reference model with every non-constant op's output kept.

    ``inputs`` are the graph's inputs in order, as ExecuTorch's Arm tests pass
    them (numpy, in the graph's layout and dtype); ``name`` names the graph in
    messages and in the run's document.
    """
    import tosa_reference_model as reference_model

    with tempfile.TemporaryDirectory(prefix="gapscope-tosa-") as work:
        graph = _to_json(tosa, name, Path(work))
        block = _only_block(graph, name)
        ops = _computed_ops(block, name)
        graph_outputs = list(block.get("outputs", []))
        types = {t["name"]: t.get("type") for t in block.get("tensors", [])}
        kept = graph_outputs + [op.output for op in ops if op.output not in graph_outputs]
        block["outputs"] = kept
        rewritten = _from_json(graph, Path(work))
        outputs, status = reference_model.run(
            rewritten, [np.asarray(x) for x in inputs], initialize_variable_tensor_from_numpy=True
        )
    if status != reference_model.GraphStatus.TOSA_VALID:
        raise TosaRunError(f"{name}: the TOSA reference model did not run the graph ({status})")
    if len(outputs) != len(kept):
        raise TosaRunError(f"{name}: the reference model returned {len(outputs)} tensors for {len(kept)} outputs")
    return TosaRun(
        tosa_name=name,
        tosa_sha256=hashlib.sha256(tosa).hexdigest(),
        ops=ops,
        graph_inputs=list(block.get("inputs", [])),
        graph_outputs=graph_outputs,
        tensors={output: np.asarray(array) for output, array in zip(kept, outputs)},
        inputs={name: np.asarray(x) for name, x in zip(block.get("inputs", []), inputs)},
        graph_input_types=[str(types.get(i, "")) for i in block.get("inputs", [])],
        graph_output_types=[str(types.get(o, "")) for o in graph_outputs],
    )


def run_program(program: Any, inputs: Sequence[Any], tosa_dir: str | Path | None = None) -> tuple[Any, list[TosaRun]]:
    """Run a program lowered with ExecuTorch's Arm partitioners as ExecuTorch's Arm tests do.

    ``program`` is the lowered ``ExportedProgram`` (``to_edge_transform_and_lower(...)
    .exported_program()``). Its graph runs in torch (the ops left outside the
    delegates, as ExecuTorch's kernels would on the CPU), and each call of a
    delegate runs on the reference model, with what ExecuTorch's own
    ``TosaReferenceModelDispatch`` hands it (the delegate's inputs, quantised
    by the program's own quantize ops outside it); each delegate's graph runs
    with every op kept (``run_every_op``). A ``TOSABackend`` delegate's graph
    is its payload; an ``EthosUBackend`` delegate's payload is Vela's command
    stream for the NPU, which only the NPU (or Arm's FVP) runs, so its TOSA
    graph, the one Vela compiled, is read from ``tosa_dir`` (where the compile
    spec dumped it: ``output_<tag>_<spec>.tosa``, the tag of the delegate's
    nodes). Returns the program's outputs and one ``TosaRun`` per delegate
    call, in call order.
    """
    import torch
    from executorch.backends.arm.test.runner_utils import (
        TosaReferenceModelDispatch,
        numpy_to_torch_tensor,
        torch_tensor_to_numpy,
    )

    runs: list[TosaRun] = []

    def graph_of(lowered: Any) -> tuple[bytes, str]:
        if lowered.backend_id == "TOSABackend":
            return lowered.processed_bytes, f"delegate {len(runs)} ({lowered.backend_id})"
        tags = {n.meta["delegation_tag"] for n in lowered.original_module.graph.nodes if "delegation_tag" in n.meta}
        if tosa_dir is None or len(tags) != 1:
            raise TosaRunError(
                f"delegate {len(runs)} ({lowered.backend_id}): its TOSA graph is not its payload, and "
                + ("no dump folder was given" if tosa_dir is None else f"its nodes carry {len(tags)} delegation tags")
            )
        tag = tags.pop()
        found = sorted(Path(tosa_dir).glob(f"output_{tag}_TOSA*.tosa"))
        if len(found) != 1:
            raise TosaRunError(f"{tosa_dir}: {len(found)} TOSA graphs of delegation tag {tag} (output_{tag}_TOSA*.tosa)")
        return found[0].read_bytes(), found[0].name

    class EveryOpDispatch(TosaReferenceModelDispatch):  # type: ignore[misc]
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            if func is torch._higher_order_ops.executorch_call_delegate:
                lowered = args[0]
                if lowered.backend_id not in ARM_BACKENDS:
                    raise TosaRunError(f"delegate {len(runs)} is {lowered.backend_id}, not an Arm backend's")
                self.ran_tosa_dispatch = True
                return self._every_op(lowered, args[1:])
            return super().__torch_function__(func, types, args, kwargs)

        def _every_op(self, lowered: Any, delegate_inputs: Any) -> Any:
            output_node = lowered.original_module.graph.output_node()
            tosa, name = graph_of(lowered)
            run = run_every_op(tosa, [torch_tensor_to_numpy(x) for x in delegate_inputs], name=name)
            run.backend = lowered.backend_id
            runs.append(run)
            return [
                numpy_to_torch_tensor(run.tensors[output], node)
                for output, node in zip(run.graph_outputs, output_node.args[0])
            ]

    with EveryOpDispatch():
        outputs = program.module()(*inputs)
    return outputs, runs


# The delegates a TOSA run stands for: the TOSA backend's, and Ethos-U's, whose
# command stream Vela compiled from a TOSA graph.
ARM_BACKENDS = ("TOSABackend", "EthosUBackend")


@functools.lru_cache(maxsize=None)
def _tosa_tools_file(suffix: str) -> Path:
    """A file tosa-tools installs (``bin/flatc``, ``bin/tosa.fbs``), found by its package record
    (once: each delegate's run asks for both twice, and the record lists every file of the package)."""
    try:
        distribution = importlib_metadata.distribution("tosa-tools")
    except importlib_metadata.PackageNotFoundError as exc:
        raise TosaRunError(
            'tosa-tools is not installed: pip install "gapscope-capture[arm]" (docs/arm.md)'
        ) from exc
    for entry in distribution.files or []:
        if str(entry).replace("\\", "/").endswith(suffix):
            return Path(distribution.locate_file(entry)).resolve()
    raise TosaRunError(f"tosa-tools {distribution.version} has no {suffix}")


def _to_json(tosa: bytes, name: str, work: Path) -> dict[str, Any]:
    schema, flatc = _tosa_tools_file("bin/tosa.fbs"), _tosa_tools_file("bin/flatc")
    source = work / "graph.tosa"
    source.write_bytes(tosa)
    done = subprocess.run(
        [str(flatc), "--json", "--strict-json", "--raw-binary", "-o", str(work), str(schema), "--", str(source)],
        capture_output=True,
        text=True,
    )
    out = work / "graph.json"
    if done.returncode != 0 or not out.is_file():
        raise TosaRunError(f"{name}: not a TOSA flatbuffer flatc can read: {done.stderr.strip()}")
    return json.loads(out.read_text())


def _from_json(graph: dict[str, Any], work: Path) -> bytes:
    schema, flatc = _tosa_tools_file("bin/tosa.fbs"), _tosa_tools_file("bin/flatc")
    source = work / "every_op.json"
    source.write_text(json.dumps(graph))
    done = subprocess.run(
        [str(flatc), "-b", "-o", str(work), str(schema), str(source)], capture_output=True, text=True
    )
    out = work / "every_op.tosa"
    if done.returncode != 0 or not out.is_file():
        raise TosaRunError(f"the rewritten TOSA graph did not serialise: {done.stderr.strip()}")
    return out.read_bytes()


def _only_block(graph: dict[str, Any], name: str) -> dict[str, Any]:
    regions = graph.get("regions") or []
    blocks = regions[0].get("blocks") if regions else None
    if len(regions) != 1 or not blocks or len(blocks) != 1:
        # ExecuTorch's Arm backend writes one region of one block (control flow
        # would add blocks): anything else is said, not guessed at.
        raise TosaRunError(
            f"{name}: {len(regions)} regions, {len(blocks or [])} blocks in the first; "
            "only a graph of one region with one block is read"
        )
    return blocks[0]


def _computed_ops(block: dict[str, Any], name: str) -> list[TosaOp]:
    tensors = {t["name"]: t for t in block.get("tensors", [])}
    ops = []
    for index, operator in enumerate(block.get("operators", [])):
        if operator.get("op") in _CONSTANT_OPS:
            continue
        outputs = [name for name in operator.get("outputs", []) if name in tensors]
        if len(outputs) != 1:
            raise TosaRunError(
                f"{name}: operator {index} ({operator.get('op')}) has {len(outputs)} tensor outputs; "
                "one is read"
            )
        tensor = tensors[outputs[0]]
        ops.append(
            TosaOp(
                index=index,
                op=str(operator.get("op")),
                output=outputs[0],
                dtype=str(tensor.get("type")),
                shape=tuple(int(d) for d in tensor.get("shape", [])),
                inputs=tuple(operator.get("inputs", [])),
                perms=_transpose_perms(operator, index, name),
                debug=_debug_entry(operator, outputs[0], index, name),
            )
        )
    return ops


def _debug_entry(operator: dict[str, Any], output: str, index: int, name: str) -> dict[str, Any] | None:
    """The op's debug entry from its location (DebugMode.TOSA), with the ``tosa_info`` DebugMode.JSON
    would have written for it (``node_name``: its output tensor; ``operator_name``: ``Op.<op>``)."""
    text = (operator.get("location") or {}).get("text")
    if not text:
        return None
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TosaRunError(f"{name}: operator {index} ({operator.get('op')}): its location is not JSON: {exc}") from exc
    if not isinstance(entry, dict):
        raise TosaRunError(f"{name}: operator {index} ({operator.get('op')}): its location is not a debug entry")
    entry.setdefault("tosa_info", {"node_name": output, "operator_name": f"Op.{operator.get('op')}"})
    return entry


def _transpose_perms(operator: dict[str, Any], index: int, name: str) -> tuple[int, ...] | None:
    if operator.get("op") != "TRANSPOSE":
        return None
    perms = (operator.get("attribute") or {}).get("perms")
    if not isinstance(perms, list) or not all(isinstance(p, int) for p in perms):
        raise TosaRunError(f"{name}: operator {index} (TRANSPOSE) has no permutation (attribute.perms)")
    return tuple(perms)


def _producer_versions() -> dict[str, str]:
    versions = {"gapscope_capture": __version__}
    for package in ("executorch", "tosa-tools"):
        try:
            versions[package] = importlib_metadata.version(package)
        except importlib_metadata.PackageNotFoundError:
            pass
    return versions
