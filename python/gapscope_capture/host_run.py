"""Lower a program with an ETRecord and run it on this machine with ETDump and a debug buffer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from executorch.exir import to_edge_transform_and_lower
from executorch.extension.pybindings.portable_lib import _load_for_executorch


def lower_and_run(
    directory: Path, exported: Any, inputs: tuple[Any, ...], partitioners: list[Any], buffer_size: int
) -> Any:
    """Lower with an ETRecord (representative inputs included), run forward once with ETDump.

    Writes etrecord.bin, model.pte, run.etdp and run.debug.bin into ``directory``;
    returns the ExecuTorch program.
    """
    program = to_edge_transform_and_lower(
        exported, partitioner=partitioners, generate_etrecord=True
    ).to_executorch()
    save_and_run(directory, program, inputs, buffer_size)
    return program


def save_program(directory: Path, program: Any, inputs: tuple[Any, ...]) -> Path:
    """Save a lowered program (made with ``generate_etrecord=True``) and its ETRecord,
    ``inputs`` as its representative inputs: etrecord.bin and model.pte in
    ``directory``. Returns the .pte's path, for a runtime to load."""
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs(inputs)
    etrecord.save(str(directory / "etrecord.bin"))
    (directory / "model.pte").write_bytes(program.buffer)
    return directory / "model.pte"


def save_and_run(directory: Path, program: Any, inputs: tuple[Any, ...], buffer_size: int) -> list[Any]:
    """Save a lowered program (made with ``generate_etrecord=True``) and its ETRecord,
    representative inputs included, and run forward once with ETDump.

    Writes etrecord.bin, model.pte, run.etdp and run.debug.bin into ``directory``;
    returns the runtime's outputs.
    """
    save_program(directory, program, inputs)
    runtime = _load_for_executorch(
        str(directory / "model.pte"), enable_etdump=True, debug_buffer_size=buffer_size
    )
    outputs = list(runtime.forward(inputs))
    runtime.write_etdump_result_to_file(str(directory / "run.etdp"), str(directory / "run.debug.bin"))
    return outputs
