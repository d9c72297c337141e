"""The host twin of a delegated program: the same program without its delegates.

XNNPACK (and other delegates that log only their outputs) make a whole int8
network one row: how far the delegate's output drifts shows, not which op inside
it loses the accuracy. The twin is the program of the same ETRecord lowered with
no partitioner, on ExecuTorch's portable and quantised kernels
(``executorch.kernels.quantized``), and run on this machine with ETDump and a
debug buffer. Lowering the ETRecord's own ATen program again gives every op the
debug handle it had in the delegated program, so:

- the twin's session, against the float reference, has one row per op: where
  quantisation loses accuracy;
- the device's session, against the twin's runtime outputs
  (``host_outputs.gscap.safetensors``), has one row per delegate output: how far
  the delegate's kernels are from the host's on the same quantised program.

``write_host_twin`` is the entry point; ``gapscope-capture twin`` its command.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Sequence

from executorch.devtools import Inspector
from torch.export import ExportedProgram
from torch.fx import GraphModule

from gapscope_capture.etrecord_capture import (
    FORWARD,
    CaptureError,
    CaptureResult,
    inputs_or_representative,
    open_etrecord,
    capture_from_etrecord,
    capture_from_program,
)
from gapscope_capture.capture_format import CaptureRecord
from gapscope_capture.float_reference import capture_float_reference

log = logging.getLogger(__name__)

# What write_host_twin writes into its folder.
HOST_OUTPUTS = "host_outputs.gscap.safetensors"
HOST_OUTPUTS_GRAPH = "host_twin_runtime"
DEBUG_BUFFER_SIZE = 64 << 20


def write_host_twin(
    etrecord_path: str | Path,
    outdir: str | Path,
    inputs: Sequence[Any] | None = None,
    float_program: ExportedProgram | GraphModule | None = None,
) -> Path:
    """Lower the ETRecord's program without delegates, run it here, capture it; returns ``outdir``.

    Writes into ``outdir``: the twin's session (``etrecord.bin``, ``model.pte``,
    ``run.etdp``, ``run.debug.bin``), ``capture.gscap.safetensors`` (the twin's
    own reference, PT2E's simulation of the quantisation, which its kernels
    should match), ``host_outputs.gscap.safetensors`` (the twin's runtime
    outputs by debug handle, to compare the device's run with) and, given the
    float program exported before quantisation, ``capture_float.gscap.safetensors``
    (the float reference: the twin's rows against it show where quantisation
    loses accuracy, op by op). ``inputs`` default to the ETRecord's
    representative inputs; the device must have run on the same.
    """
    import executorch.kernels.quantized  # noqa: F401 - quantize/dequantize kernels for the host

    from gapscope_capture.host_run import lower_and_run

    etrecord_path = Path(etrecord_path)
    outdir = Path(outdir)
    etrecord, _, _ = open_etrecord(etrecord_path, hash_file=False)
    program = etrecord.exported_program
    if isinstance(program, dict):
        program = program.get(FORWARD)
    if program is None:
        raise CaptureError(
            f"{etrecord_path}: the ETRecord holds no ATen exported_program to lower again; "
            "generate it with to_edge_transform_and_lower(..., generate_etrecord=True)"
        )
    model_inputs = tuple(inputs_or_representative(inputs, etrecord, etrecord_path))
    outdir.mkdir(parents=True, exist_ok=True)
    try:
        lowered = lower_and_run(outdir, program, model_inputs, [], DEBUG_BUFFER_SIZE)
    except Exception as exc:  # an op without a portable kernel, an input of another shape
        raise CaptureError(
            f"{etrecord_path}: the program without delegates does not run on the host: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    capture = capture_from_etrecord(outdir / "etrecord.bin", model_inputs)
    capture.fill_quantization(capture_from_program(lowered, model_inputs))
    capture.write(outdir / "capture.gscap.safetensors")
    if float_program is not None:
        capture_float_reference(float_program, capture).write(outdir / "capture_float.gscap.safetensors")
    names = {record.debug_handle: record.ops for record in capture.records}
    host_outputs(outdir, model_inputs, names).write(outdir / HOST_OUTPUTS)
    log.info("host twin of %s written to %s", etrecord_path, outdir)
    return outdir


def host_outputs(
    twin_dir: Path, inputs: Sequence[Any], op_names: dict[tuple[int, ...], list[str]] | None = None
) -> CaptureResult:
    """The twin's runtime outputs by debug handle, as a capture: ExecuTorch's Inspector reads
    them from the twin's ETDump and debug buffer (one value per handle, the last op's).

    ``op_names``: the program's op names by debug handle (the twin's capture's), so that a
    row reads ``conv2d`` rather than the kernel's ``native_call_dequantize_per_tensor.out``;
    the runtime's names where a handle has none.
    """
    inspector = Inspector(
        etdump_path=str(twin_dir / "run.etdp"),
        etrecord=str(twin_dir / "etrecord.bin"),
        debug_buffer_path=str(twin_dir / "run.debug.bin"),
    )
    # The Inspector's own reading of the runtime side (no public getter).
    outputs, runtime_names = inspector._get_runtime_intermediate_outputs_and_op_names()
    records = []
    for handles in sorted(outputs, key=lambda h: (max(h), h)):
        value, _count = outputs[handles]
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]  # the runtime logs a list even of one output; the capture a tensor
        names = (op_names or {}).get(tuple(handles)) or runtime_names.get(handles, [])
        records.append(CaptureRecord.from_intermediate_output(handles, value, names))
    if not records:
        raise CaptureError(f"{twin_dir}: the host run logged no intermediate output")
    return CaptureResult(
        records=records,
        inputs=list(inputs),
        reference_outputs=None,
        reference_graph=HOST_OUTPUTS_GRAPH,
        method=FORWARD,
        etrecord_sha256=None,
    )
