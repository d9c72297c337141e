"""An ETRecord read as ExecuTorch's ``parse_etrecord`` reads it, each graph deserialised when first used.

``parse_etrecord`` deserialises every program the archive holds (the ATen
program, each method's edge program, every ``graph_map`` entry), each with
its weights, before anything is captured. A capture runs one of them, and the
default reference (the ATen program, with debug handles propagated back from
the edge program, as ExecuTorch's Inspector does) reads only the edge
program's node metadata. On an 8-layer Llama (ETRecord 288 MB) deserialising
the edge program's 141 MB of weights was a quarter of the capture's work
(issue 60).

``read_etrecord`` returns an ``ETRecord`` whose programs are deserialised on
first access, with ExecuTorch's own deserialiser and the same entry rules as
``parse_etrecord`` (ExecuTorch 1.5.1). ``edge_graph`` gives a method's edge
program for reading its graph: deserialised with its weights on the meta
device unless the full program is already there. Nothing else differs: the
programs that are run are deserialised whole.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from typing import Any, Callable, Iterator

import torch
from executorch.devtools.etrecord import ETRecord
from executorch.devtools.etrecord._etrecord import ETRecordReservedFileNames as Names
from torch.export import ExportedProgram
from torch.fx import Graph, GraphModule

from gapscope_capture.capture_errors import CaptureError

_SUFFIXES = ("_state_dict", "_constants", "_example_inputs")


class _LazyPrograms(Mapping):
    """``graph_map``: names known from the archive, each program deserialised when looked up."""

    def __init__(self, names: list[str], load: Callable[[str], ExportedProgram]) -> None:
        self._names = names
        self._load = load
        self._loaded: dict[str, ExportedProgram] = {}

    def __getitem__(self, name: str) -> ExportedProgram:
        if name not in self._names:
            raise KeyError(name)
        if name not in self._loaded:
            self._loaded[name] = self._load(name)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class LazyETRecord(ETRecord):
    """An ``ETRecord`` read from a file whose programs are deserialised on first access."""

    def __init__(self, archive: zipfile.ZipFile, path: str) -> None:  # noqa: C901 (parse_etrecord's rules)
        # ETRecord.__init__ is not called: its programs are properties here.
        self._archive = archive
        self._path = path
        names = archive.namelist()
        if Names.ETRECORD_IDENTIFIER not in names:
            raise RuntimeError(
                "ETRecord identifier missing from etrecord file passed in. Either an invalid "
                "file was passed in or the file is corrupt."
            )
        self._ETRecord__debug_handle_map = None
        self._delegate_map = None
        self._instruction_id_to_num_outs_map = None
        self._reference_outputs = None
        self._representative_inputs = None
        self.export_graph_id = 0
        self._aten_entry: str | None = None
        self._old_edge_entry: str | None = None
        self._edge_entries: dict[str, str] = {}  # method -> entry
        graph_entries: list[str] = []
        edge_prefix = f"{Names.EDGE_DIALECT_EXPORTED_PROGRAM}/"
        for entry in names:
            if entry == Names.DEBUG_HANDLE_MAP_NAME:
                self._ETRecord__debug_handle_map = json.loads(archive.read(entry))
            elif entry == Names.DELEGATE_MAP_NAME:
                self._delegate_map = json.loads(archive.read(entry))
            elif entry == Names.INSTRUCTION_ID_TO_NUM_OUTS_MAP_NAME:
                self._instruction_id_to_num_outs_map = json.loads(archive.read(entry))
            elif entry == Names.ETRECORD_IDENTIFIER:
                continue
            elif entry == Names.EDGE_DIALECT_EXPORTED_PROGRAM:
                self._old_edge_entry = entry
            elif entry.startswith(edge_prefix) and not entry.endswith(_SUFFIXES):
                self._edge_entries[entry[len(edge_prefix) :]] = entry
            elif entry == Names.EXPORTED_PROGRAM:
                self._aten_entry = entry
            elif entry == Names.REFERENCE_OUTPUTS:
                self._reference_outputs = _load_tensors(archive.read(entry), "reference_outputs")
            elif entry == Names.REPRESENTATIVE_INPUTS:
                self._representative_inputs = _load_tensors(archive.read(entry), "representative_inputs")
            elif entry == Names.EXPORT_GRAPH_ID:
                self.export_graph_id = json.loads(archive.read(entry))
            elif not entry.endswith(("state_dict", "constants", "example_inputs")):
                graph_entries.append(entry)
        for entry in graph_entries:
            # parse_etrecord asserts this for every graph-map entry when it reads the file.
            assert f"{entry}_state_dict" in names, f"Could not find corresponding state dict file for {entry}."
        self._programs: dict[tuple[str, bool], ExportedProgram] = {}
        self._graph_map = _LazyPrograms(graph_entries, self._program)
        self._set: dict[str, Any] = {}

    # --- the programs, as ETRecord attributes -------------------------------------------

    @property
    def exported_program(self) -> ExportedProgram | None:
        if "exported_program" in self._set:
            return self._set["exported_program"]
        return self._program(self._aten_entry) if self._aten_entry else None

    @exported_program.setter
    def exported_program(self, value: ExportedProgram | None) -> None:
        self._set["exported_program"] = value

    @property
    def edge_dialect_program(self) -> ExportedProgram | dict[str, ExportedProgram] | None:
        if "edge_dialect_program" in self._set:
            return self._set["edge_dialect_program"]
        if self._edge_entries:
            programs = {method: self._program(entry) for method, entry in self._edge_entries.items()}
            return next(iter(programs.values())) if len(programs) == 1 else programs
        return self._program(self._old_edge_entry) if self._old_edge_entry else None

    @edge_dialect_program.setter
    def edge_dialect_program(self, value: Any) -> None:
        self._set["edge_dialect_program"] = value

    @property
    def graph_map(self) -> Mapping[str, ExportedProgram]:
        return self._set.get("graph_map", self._graph_map)

    @graph_map.setter
    def graph_map(self, value: Any) -> None:
        self._set["graph_map"] = value

    # --- reading a graph without running it --------------------------------------------

    def edge_methods(self) -> list[str] | None:
        """The methods with an edge program, or None for the old single-program layout."""
        return list(self._edge_entries) if self._edge_entries else None

    def edge_graph(self, method: str, values: bool = False) -> Any:
        """``method``'s edge program for reading its graph's provenance, not for running.

        The full program when it was already deserialised. Otherwise, without
        ``values``: an ``EdgeProvenance`` (each node's debug handle and
        ``from_node``, read from the entry's JSON), which is all ExecuTorch's
        ``propagate_back_debug_handle`` reads of it; a graph with control flow
        falls back to the next. With ``values`` (each node's ``meta["val"]``
        too): the program deserialised with its weights on the meta device.
        """
        if "edge_dialect_program" in self._set:
            programs = self._set["edge_dialect_program"]
            return programs.get(method) if isinstance(programs, dict) else programs
        entry = self._old_edge_entry
        if len(self._edge_entries) == 1:  # one program, whatever its method's name (parse_etrecord)
            entry = next(iter(self._edge_entries.values()))
        elif self._edge_entries:
            entry = self._edge_entries.get(method)
        if entry is None:
            return None
        if (entry, True) in self._programs:
            return self._programs[(entry, True)]
        if not values:
            view = EdgeProvenance.read(self._archive.read(entry))
            if view is not None:
                return view
        return self._program(entry, weights=False)

    def _program(self, entry: str, weights: bool = True) -> ExportedProgram:
        key = (entry, weights)
        if key not in self._programs:
            from executorch.exir.serde.export_serialize import SerializedArtifact
            from executorch.exir.serde.serialize import deserialize

            read = self._archive.read
            try:
                state_dict = read(f"{entry}_state_dict")
                if not weights:
                    state_dict = _on_meta(state_dict)
                self._programs[key] = deserialize(
                    SerializedArtifact(
                        read(entry), state_dict, read(f"{entry}_constants"), read(f"{entry}_example_inputs")
                    )
                )
            except Exception as exc:  # ExecuTorch's deserialiser raises bare KeyError/… for bad entries
                raise CaptureError(
                    f"{self._path}: entry '{entry}': not a program ExecuTorch can read: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
        return self._programs[key]


class _GraphOnly(GraphModule):
    """A ``GraphModule`` that only holds a graph: never compiled, never run."""

    def __init__(self, graph: Graph) -> None:
        torch.nn.Module.__init__(self)
        self.__dict__["_graph"] = graph  # GraphModule.graph's setter would compile it


def _provenance_target(*args: Any) -> None:
    """The target of an ``EdgeProvenance`` node, never called."""
    raise RuntimeError("an EdgeProvenance graph is read, never run")


class EdgeProvenance:
    """An edge program's nodes with only their debug handle and ``from_node``.

    ExecuTorch's ``propagate_back_debug_handle`` reads nothing else of the edge
    program: which node (not placeholder or output) carries which
    ``meta["debug_handle"]``, and its ``meta["from_node"]`` chain. Both are read
    here from the serialised graph exactly as ExecuTorch's deserialiser reads
    them (``exir.serde.serialize.GraphModuleDeserializer.deserialize_metadata``:
    ``int()`` of a non-empty handle, ``NodeSource._from_dict`` of each
    ``from_node``), without building fake tensors, operators or weights. The
    ``getitem`` nodes the deserialiser adds after a multi-output node copy that
    node's metadata, so they change nothing and are not made.
    """

    def __init__(self, graph: Graph) -> None:
        self.graph_module = _GraphOnly(graph)
        self.graph = graph

    @staticmethod
    def read(serialized: bytes) -> "EdgeProvenance | None":
        """From an entry's JSON; None for a graph with control flow (nested graphs)."""
        from torch.fx.traceback import NodeSource

        program = json.loads(serialized)
        graph = Graph()
        for node in program["graph_module"]["graph"]["nodes"]:
            if any("as_graph" in argument.get("arg", {}) for argument in node.get("inputs", [])):
                return None
            metadata = node.get("metadata") or {}
            meta: dict[str, Any] = {}
            if handle := metadata.get("debug_handle"):
                meta["debug_handle"] = int(handle)
            if from_node := metadata.get("from_node"):
                sources = json.loads(from_node)
                assert isinstance(sources, list)
                meta["from_node"] = [NodeSource._from_dict(source) for source in sources]
            created = graph.create_node("call_function", _provenance_target)
            created.meta = meta
        return EdgeProvenance(graph)


def read_etrecord(path: str) -> LazyETRecord:
    """The ETRecord at ``path``; raises what ``parse_etrecord`` raises for a file that is not one."""
    try:
        archive = zipfile.ZipFile(path, "r")
    except zipfile.BadZipFile:
        raise RuntimeError("Invalid etrecord file passed in.") from None
    return LazyETRecord(archive, path)


def _load_tensors(data: bytes, what: str) -> Any:
    try:
        return torch.load(io.BytesIO(data), weights_only=True)
    except Exception as exc:
        raise RuntimeError(
            f"Failed to load {what} from ETRecord. This ETRecord file may have been created with "
            "an older version that used pickle serialization. Please regenerate the ETRecord file "
            "with the current version of ExecuTorch."
        ) from exc


def _on_meta(state_dict: bytes) -> bytes:
    """A serialised state dict with the same names, shapes and dtypes, and no data."""
    tensors = torch.load(io.BytesIO(state_dict), weights_only=True, map_location="meta")
    out = io.BytesIO()
    torch.save(tensors, out)
    return out.getvalue()
