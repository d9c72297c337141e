"""Every op's output of a TOSA graph, run on the TOSA reference model, exactly (issue 61).

ExecuTorch's Arm backend lowers a delegated subgraph to one TOSA flatbuffer
(``output_tag<N>_TOSA-1.0+FP.tosa`` or ``+INT``, written where the compile
spec's ``dump_intermediate_artifacts_to`` points) and, with
``dump_debug_info(DebugMode.JSON)``, a ``debug.json`` that ties each
non-constant TOSA op's output tensor to the ATen node it was lowered from
(docs/arm.md). ExecuTorch's Arm tests run such a graph with
``tosa_reference_model.run`` and compare its graph outputs; the reference
model's own ``dump_intermediates`` writes the other tensors only as text, in 5
or 9 printed digits. Here the graph is rewritten so that every non-constant
op's output is also a graph output (flatc, from tosa-tools, to JSON and back:
nothing else of the graph changes), then run the same way, so each op's
tensor comes back as the reference model computed it, bit for bit.

The result is written as ``tosa_run.safetensors``: one tensor per op output,
named by its TOSA tensor name (``debug.json``'s ``tosa_info.node_name``), in
the dtype the reference model returned (int8 and int32 stay integers: the
reader dequantises them), and a ``gapscope.tosa_run`` metadata document
(docs/formats/tosa-run.md) listing the ops in graph order.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gapscope_capture import __version__
from gapscope_capture.capture_format import atomic_output
from gapscope_capture.etrecord_digest import file_sha256

TOSA_RUN_FORMAT = "gapscope.tosa_run"
TOSA_RUN_VERSION = 1
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
    output: str  # its output tensor's name: debug.json's tosa_info.node_name
    dtype: str  # the output's TOSA type ("FP32", "INT8", "INT32")
    shape: tuple[int, ...]
    inputs: tuple[str, ...]
    # A TRANSPOSE's permutation (its TransposeAttribute): how a reader tells
    # each tensor's layout against torch's (NHWC around convolutions).
    perms: tuple[int, ...] | None = None


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

    def write(self, path: str | Path, debug_json: str | Path | None = None) -> None:
        """Write ``tosa_run.safetensors`` (atomically): the tensors and the metadata document."""
        from safetensors.numpy import save_file

        document: dict[str, Any] = {
            "format": TOSA_RUN_FORMAT,
            "version": TOSA_RUN_VERSION,
            "producer": _producer_versions(),
            "tosa_file": {"name": self.tosa_name, "sha256": self.tosa_sha256},
            "graph_inputs": self.graph_inputs,
            "graph_outputs": self.graph_outputs,
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
                for op in self.ops
            ],
        }
        if debug_json is not None:
            # Where it lies from the run's folder, so that a reader finds it (the
            # Arm backend writes it into its dump folder, tosa/ in a session).
            where = Path(os.path.relpath(Path(debug_json).resolve(), Path(path).resolve().parent)).as_posix()
            document["debug_json"] = {
                "name": Path(debug_json).name,
                "path": where,
                "sha256": file_sha256(Path(debug_json)),
            }
        tensors = {name: np.ascontiguousarray(array) for name, array in {**self.inputs, **self.tensors}.items()}
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
    )


def run_program(program: Any, inputs: Sequence[Any]) -> tuple[Any, list[TosaRun]]:
    """Run a program lowered with ExecuTorch's Arm TOSA partitioner as ExecuTorch's Arm tests do.

    ``program`` is the lowered ``ExportedProgram`` (``to_edge_transform_and_lower(...)
    .exported_program()``). Its graph runs in torch, and each call of a TOSA
    delegate runs on the reference model, with what ExecuTorch's own
    ``TosaReferenceModelDispatch`` hands it (the delegate's inputs, quantised
    by the program's own quantize ops outside it); each delegate's graph runs
    with every op kept (``run_every_op``). Returns the program's outputs and
    one ``TosaRun`` per delegate call, in call order.
    """
    from executorch.backends.arm.test.runner_utils import (
        TosaReferenceModelDispatch,
        numpy_to_torch_tensor,
        torch_tensor_to_numpy,
    )

    runs: list[TosaRun] = []

    class EveryOpDispatch(TosaReferenceModelDispatch):  # type: ignore[misc]
        def _tosa_dispatch(self, lowered: Any, delegate_inputs: Any) -> Any:
            output_node = lowered.original_module.graph.output_node()
            run = run_every_op(
                lowered.processed_bytes,
                [torch_tensor_to_numpy(x) for x in delegate_inputs],
                name=f"delegate {len(runs)} ({lowered.backend_id})",
            )
            runs.append(run)
            return [
                numpy_to_torch_tensor(run.tensors[output], node)
                for output, node in zip(run.graph_outputs, output_node.args[0])
            ]

    with EveryOpDispatch():
        outputs = program.module()(*inputs)
    return outputs, runs


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
            )
        )
    return ops


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
