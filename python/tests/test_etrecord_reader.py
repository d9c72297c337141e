"""The lazy ETRecord reader against ExecuTorch's own ``parse_etrecord`` (issue 60).

The capture deserialises only what it runs, and propagates debug handles back
from an ``EdgeProvenance`` (the edge graph's handles and ``from_node``, read
from its JSON) instead of the deserialised edge program. These tests hold it to
ExecuTorch's own results on every committed ETRecord: the same propagation
outcome and the same handle on every ATen node, the same programs and maps.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from executorch.devtools.etrecord import parse_etrecord
from executorch.devtools.inspector._inspector_utils import propagate_back_debug_handle

from gapscope_capture.capture_errors import CaptureError
from gapscope_capture.etrecord_reader import EdgeProvenance, LazyETRecord, read_etrecord


def _etrecords(test_data_dir: Path) -> list[Path]:
    found = sorted(test_data_dir.glob("*/etrecord.bin"))
    demo = test_data_dir.parents[1] / "resources" / "demo" / "etrecord.bin"
    return found + ([demo] if demo.exists() else [])


def _handles(program) -> list[tuple[str, object]]:
    return [(node.name, node.meta.get("debug_handle")) for node in program.graph.nodes]


def _propagate(exported, graph_id, edge):
    try:
        return propagate_back_debug_handle(exported, graph_id, edge)
    except Exception as exc:  # ExecuTorch asserts on colliding graph ids: the same raise is expected
        return type(exc).__name__


def test_propagation_from_the_edge_provenance_equals_executorchs(test_data_dir: Path) -> None:
    # The tap operator registered, as the exporter's taps do: ExecuTorch's deserialiser
    # drops the metadata of an operator it cannot find, and its propagation then raises.
    import executorch.devtools.intermediate_output_tap  # noqa: F401

    checked = 0
    for path in _etrecords(test_data_dir):
        theirs = parse_etrecord(str(path))
        ours = read_etrecord(str(path))
        edge = theirs.edge_dialect_program
        methods = list(edge) if isinstance(edge, dict) else ["forward"]
        for method in methods:
            their_edge = edge[method] if isinstance(edge, dict) else edge
            view = ours.edge_graph(method)
            assert isinstance(view, EdgeProvenance), f"{path}: {method}: expected the light view"
            if theirs.exported_program is None or method != "forward":
                continue
            # Without back-propagation nothing differs: both ATen graphs carry no handle.
            assert _handles(ours.exported_program) == _handles(theirs.exported_program), path
            expected = _propagate(theirs.exported_program, theirs.export_graph_id, their_edge)
            got = _propagate(ours.exported_program, ours.export_graph_id, view)
            assert got == expected, f"{path}: propagation {got} against ExecuTorch's {expected}"
            assert _handles(ours.exported_program) == _handles(theirs.exported_program), path
            checked += 1
    assert checked >= 10, f"only {checked} ETRecords with an ATen program were compared"


def test_the_lazy_record_holds_what_parse_etrecord_holds(test_data_dir: Path) -> None:
    for path in _etrecords(test_data_dir):
        theirs = parse_etrecord(str(path))
        ours = read_etrecord(str(path))
        assert isinstance(ours, LazyETRecord)
        assert ours.export_graph_id == theirs.export_graph_id
        assert ours._delegate_map == theirs._delegate_map
        assert ours._debug_handle_map == theirs._debug_handle_map
        assert ours._instruction_id_to_num_outs_map == theirs._instruction_id_to_num_outs_map
        assert sorted(ours.graph_map or {}) == sorted(theirs.graph_map or {})
        for key in theirs.graph_map or {}:
            assert _handles(ours.graph_map[key]) == _handles(theirs.graph_map[key]), (path, key)
        ours_inputs, their_inputs = ours._representative_inputs, theirs._representative_inputs
        assert (ours_inputs is None) == (their_inputs is None)
        if their_inputs is not None:
            assert all(torch.equal(a, b) for a, b in zip(ours_inputs, their_inputs)), path
        edge, their_edge = ours.edge_dialect_program, theirs.edge_dialect_program
        assert isinstance(edge, dict) == isinstance(their_edge, dict), path
        pairs = [(edge[m], their_edge[m]) for m in their_edge] if isinstance(their_edge, dict) else [(edge, their_edge)]
        for mine, other in pairs:
            assert _handles(mine) == _handles(other), path
            assert sorted(mine.state_dict) == sorted(other.state_dict)
            assert all(torch.equal(mine.state_dict[k], other.state_dict[k]) for k in other.state_dict)


def test_a_bad_entry_is_named(tmp_path: Path, test_data_dir: Path) -> None:
    import zipfile

    source = test_data_dir / "portable_mha" / "etrecord.bin"
    broken = tmp_path / "etrecord.bin"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(broken, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            new.writestr(info, b"{not json" if info.filename == "exported_program" else data)
    record = read_etrecord(str(broken))
    with pytest.raises(CaptureError, match="entry 'exported_program': not a program ExecuTorch can read"):
        record.exported_program
    not_a_zip = tmp_path / "not-a-zip.bin"
    not_a_zip.write_bytes(b"ED00 and more")
    with pytest.raises(RuntimeError, match="Invalid etrecord file"):
        read_etrecord(str(not_a_zip))
