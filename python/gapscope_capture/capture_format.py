"""Reading and writing Gapscope AOT capture files (``.gscap.safetensors``).

The format is specified in ``docs/formats/aot-capture.md``: a safetensors file
whose ``__metadata__["gapscope.aot_capture"]`` holds a JSON document describing
the records, with every tensor stored as a safetensors tensor and referenced by
name. This module knows nothing about ExecuTorch so that the format can be
tested, read and written without importing it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import numbers
import os
import re
import tempfile
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from gapscope_capture import CAPTURE_FORMAT_VERSION, __version__
from gapscope_capture.capture_errors import CaptureFormatError
from gapscope_capture.tap_record import TapRecord

FORMAT_NAME = "gapscope.aot_capture"
FORMAT_VERSION = CAPTURE_FORMAT_VERSION
METADATA_KEY = "gapscope.aot_capture"

# torch dtypes that have a safetensors counterpart (F64 … F8_E4M3 in the spec).
_STORABLE_DTYPES = frozenset(
    {
        torch.float64,
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.int64,
        torch.int32,
        torch.int16,
        torch.int8,
        torch.uint8,
        torch.uint16,
        torch.uint32,
        torch.uint64,
        torch.bool,
        torch.float8_e5m2,
        torch.float8_e4m3fn,
    }
)

_NON_FINITE_TO_JSON = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
_NON_FINITE_FROM_JSON = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}

_INPUT_NAME = re.compile(r"inputs/(0|[1-9][0-9]*)")

# A quantisation entry as documented: {"scheme", "scale", "zero_point", "axis"?,
# "dtype", "qmin", "qmax"}.
Quantization = dict[str, Any]


@dataclass
class CaptureRecord:
    """One captured debug-handle key and what the reference graph produced for it.

    ``outputs`` holds Python values: tensors, ``int``/``float``/``bool``
    scalars, ``None`` and (nested) lists of those. ``quantization`` is either
    ``None`` (unknown) or one entry per output.
    """

    debug_handle: tuple[int, ...]
    ops: list[str]
    outputs: list[Any]
    sequence: bool = False
    stack_traces: dict[str, str | None] = field(default_factory=dict)
    quantization: list[Quantization | None] | None = None
    axis_order: list[int] | None = None
    # Why no reference value can be given for this key (its outputs are then all None):
    # Gapscope shows the row invalid with this reason (capture_float_reference).
    invalid_reason: str | None = None

    def __post_init__(self) -> None:
        self.debug_handle = tuple(self.debug_handle)
        if not self.debug_handle or not all(
            isinstance(h, int) and not isinstance(h, bool) and h > 0
            for h in self.debug_handle
        ):
            raise CaptureFormatError(
                f"debug handle {self.debug_handle!r}: must be a non-empty tuple of positive integers"
            )
        if not self.sequence and len(self.outputs) != 1:
            raise CaptureFormatError(
                f"record {list(self.debug_handle)}: a non-sequence record holds exactly one output, "
                f"got {len(self.outputs)}"
            )
        if self.invalid_reason is not None and any(o is not None for o in self.outputs):
            raise CaptureFormatError(
                f"record {list(self.debug_handle)}: a record with an invalid_reason holds no values"
            )
        if self.quantization is not None and len(self.quantization) != len(self.outputs):
            raise CaptureFormatError(
                f"record {list(self.debug_handle)}: {len(self.quantization)} quantization entries "
                f"for {len(self.outputs)} outputs"
            )

    @classmethod
    def from_intermediate_output(
        cls,
        debug_handle: Sequence[int],
        value: Any,
        ops: Sequence[str],
        stack_traces: Mapping[str, str | None] | None = None,
    ) -> "CaptureRecord":
        """Build a record from one entry of ExecuTorch's capture dict.

        ``IntermediateOutputCapturer`` stores a tensor for single-output nodes,
        a list for nodes returning a tuple/list (e.g. ``topk``) and the raw
        value otherwise; a list becomes a sequence record.
        """
        if isinstance(value, (list, tuple)):
            return cls(tuple(debug_handle), list(ops), list(value), True, dict(stack_traces or {}))
        return cls(tuple(debug_handle), list(ops), [value], False, dict(stack_traces or {}))


@dataclass
class Capture:
    """The decoded content of a capture file."""

    records: list[CaptureRecord]
    inputs: list[Any] | None
    reference_outputs: list[Any] | None
    reference_graph: str | None
    method: str
    etrecord_sha256: str | None
    producer: dict[str, str]
    layout_recorded: bool = False
    # The execution this capture is of, counted from 0, when it is one of a sequence
    # (capture_steps_from_etrecord): state carried from the executions before it.
    step: int | None = None
    # The ETRecord's table of contents (etrecord_digest.etrecord_entries_sha256), when recorded.
    etrecord_entries_sha256: str | None = None
    # The program's outputs that are taps (ExecuTorch's intermediate-output tap), if any.
    taps: list[TapRecord] = field(default_factory=list)


def step_capture_name(method: str, step: int) -> str:
    """A step capture's file name, ``capture.<method>.step-007.gscap.safetensors``: sorted in step order."""
    return f"capture.{method}.step-{step:03d}.gscap.safetensors"


def producer_versions() -> dict[str, str]:
    """Versions of the tools that write a capture, for the ``producer`` field."""
    versions = {"gapscope_capture": __version__, "torch": torch.__version__}
    try:
        versions["executorch"] = importlib_metadata.version("executorch")
    except importlib_metadata.PackageNotFoundError:
        pass
    return versions


def json_float(value: float) -> float | str:
    """A float as the format stores it: itself if finite, else "NaN", "Infinity" or "-Infinity"."""
    number = float(value)
    return number if math.isfinite(number) else _NON_FINITE_TO_JSON[repr(number)]


def write_capture(
    path: str | os.PathLike[str],
    records: Sequence[CaptureRecord],
    *,
    inputs: Sequence[Any] | None = None,
    reference_outputs: Sequence[Any] | None = None,
    reference_graph: str | None = None,
    method: str = "forward",
    etrecord_sha256: str | None = None,
    etrecord_entries_sha256: str | None = None,
    layout_recorded: bool = False,
    step: int | None = None,
    taps: Sequence[TapRecord] = (),
) -> None:
    """Write a capture file atomically.

    ``taps`` say which of ``reference_outputs`` are the values of ExecuTorch's
    intermediate-output tap (each needs its reference output).

    ``layout_recorded`` says that every record's ``axis_order`` was read from
    the graph the backend lowered, so that ``None`` means "same layout" rather
    than "unknown" (docs/formats/aot-capture.md). ``step`` is the execution the
    capture is of, counted from 0, when it is one of a sequence.

    The file is written to a temporary file in the destination directory and
    renamed over ``path``, so a reader never sees a half-written capture.
    """
    tensors: dict[str, torch.Tensor] = {}
    owned_storages: set[int] = set()

    def encode(value: Any, name: str) -> dict[str, Any]:
        return _encode_value(value, name, tensors, owned_storages)

    document: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "producer": producer_versions(),
        "reference_graph": reference_graph,
        "method": method,
        "etrecord_sha256": etrecord_sha256,
    }
    if etrecord_entries_sha256 is not None:
        document["etrecord_entries_sha256"] = etrecord_entries_sha256
    if layout_recorded:
        document["layout_recorded"] = True
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise CaptureFormatError(f"{path}: step must be an integer of 0 or more, not {step!r}")
        document["step"] = step
    if inputs is not None:
        document["inputs"] = [encode(v, f"inputs/{i}") for i, v in enumerate(inputs)]
    if reference_outputs is not None:
        document["reference_outputs"] = [
            encode(v, f"reference_outputs/{i}") for i, v in enumerate(reference_outputs)
        ]
    document["records"] = [_encode_record(record, r, encode) for r, record in enumerate(records)]
    if taps:
        outputs = len(reference_outputs) if reference_outputs is not None else 0
        seen: set[int] = set()
        for tap in taps:
            if tap.output_index >= outputs:
                raise CaptureFormatError(
                    f"{path}: tap {tap.node_name!r} is program output {tap.output_index}, but the "
                    f"capture holds {outputs} reference outputs"
                )
            if tap.output_index in seen:
                raise CaptureFormatError(f"{path}: two taps are program output {tap.output_index}")
            seen.add(tap.output_index)
        document["taps"] = [tap.to_json() for tap in taps]
    try:
        header = json.dumps(document, allow_nan=False, separators=(",", ":"))
    except ValueError as exc:  # a NaN/inf outside a float value, e.g. a scale
        raise CaptureFormatError(f"{path}: capture document is not valid JSON: {exc}") from exc

    destination = Path(path)
    if not destination.parent.is_dir():
        raise FileNotFoundError(
            errno.ENOENT, "output directory does not exist", str(destination.parent)
        )
    handle, temp_name = tempfile.mkstemp(
        prefix=f".{destination.name}.", suffix=".tmp", dir=destination.parent
    )
    os.close(handle)
    try:
        save_file(tensors, temp_name, metadata={METADATA_KEY: header})
        os.chmod(temp_name, 0o644)  # mkstemp creates 0600; a capture is meant to be shared
        os.replace(temp_name, destination)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def read_capture(path: str | os.PathLike[str]) -> Capture:
    """Read a capture file, raising ``CaptureFormatError`` for anything that is not one."""
    with _open_safetensors(path) as handle:
        header = (handle.metadata() or {}).get(METADATA_KEY)
        if header is None:
            raise CaptureFormatError(
                f"{path}: not a Gapscope AOT capture: the safetensors metadata has no "
                f"'{METADATA_KEY}' key"
            )
        try:
            document = json.loads(header)
        except json.JSONDecodeError as exc:
            raise CaptureFormatError(f"{path}: '{METADATA_KEY}' is not valid JSON: {exc}") from exc
        if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
            raise CaptureFormatError(f"{path}: '{METADATA_KEY}' does not hold a '{FORMAT_NAME}' document")
        version = document.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise CaptureFormatError(f"{path}: invalid capture format version {version!r}")
        if version > FORMAT_VERSION:
            raise CaptureFormatError(
                f"{path}: capture format version {version} is newer than the supported "
                f"version {FORMAT_VERSION}; upgrade gapscope_capture"
            )
        tensor_names = set(handle.keys())

        def decode(value: Any, where: str) -> Any:
            return _decode_value(value, where, handle, tensor_names, path)

        try:
            records = [
                _decode_record(raw, index, decode, path)
                for index, raw in enumerate(document["records"])
            ]
            inputs = document.get("inputs")
            reference_outputs = document.get("reference_outputs")
            return Capture(
                records=records,
                inputs=None if inputs is None else [decode(v, "inputs") for v in inputs],
                reference_outputs=None
                if reference_outputs is None
                else [decode(v, "reference_outputs") for v in reference_outputs],
                reference_graph=document.get("reference_graph"),
                method=document.get("method", "forward"),
                etrecord_sha256=document.get("etrecord_sha256"),
                etrecord_entries_sha256=document.get("etrecord_entries_sha256"),
                producer=dict(document.get("producer") or {}),
                layout_recorded=document.get("layout_recorded") is True,
                step=document.get("step"),
                taps=[TapRecord.from_json(raw) for raw in document.get("taps") or []],
            )
        except (KeyError, TypeError) as exc:
            raise CaptureFormatError(f"{path}: malformed capture document ({exc!r})") from exc


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; it replaces ``path`` when the block
    ends without an exception, and is removed otherwise: a reader never sees half a file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_inputs(inputs: Sequence[torch.Tensor], path: str | os.PathLike[str]) -> None:
    """Write model inputs as ``read_inputs`` reads them (``inputs/0``, ``inputs/1``, …), atomically."""
    tensors = {f"inputs/{i}": t.detach().contiguous() for i, t in enumerate(inputs)}
    with atomic_output(path) as tmp:
        save_file(tensors, str(tmp))


def read_inputs(path: str | os.PathLike[str]) -> list[torch.Tensor]:
    """Read model inputs from a safetensors file with tensors ``inputs/0``, ``inputs/1``, ….

    Other top-level tensor names are ignored, so a capture file can serve as
    an inputs file; nested names such as ``inputs/0/1`` are refused because a
    flat positional tensor list is all that can be given this way.
    """
    with _open_safetensors(path) as handle:
        indices: dict[int, str] = {}
        for name in handle.keys():
            if not name.startswith("inputs/"):
                continue
            match = _INPUT_NAME.fullmatch(name)
            if match is None:
                raise CaptureFormatError(
                    f"{path}: tensor '{name}' is not named inputs/<index> (indices 0, 1, 2, …)"
                )
            indices[int(match.group(1))] = name
        if not indices:
            raise CaptureFormatError(f"{path}: no tensors named inputs/0, inputs/1, …")
        missing = sorted(set(range(max(indices) + 1)) - set(indices))
        if missing:
            raise CaptureFormatError(f"{path}: input tensor 'inputs/{missing[0]}' is missing")
        return [handle.get_tensor(indices[i]) for i in range(len(indices))]


def _open_safetensors(path: str | os.PathLike[str]) -> Any:
    if not Path(path).is_file():
        raise CaptureFormatError(f"{path}: no such file")
    try:
        return safe_open(os.fspath(path), framework="pt")
    except SafetensorError as exc:
        raise CaptureFormatError(f"{path}: not a safetensors file ({exc})") from exc


def _encode_value(
    value: Any, name: str, tensors: dict[str, torch.Tensor], owned_storages: set[int]
) -> dict[str, Any]:
    if isinstance(value, torch.Tensor):
        tensors[name] = _storable_tensor(value, name, owned_storages)
        return {"kind": "tensor", "name": name}
    if value is None:
        return {"kind": "null"}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, numbers.Integral):
        return {"kind": "int", "value": int(value)}
    if isinstance(value, numbers.Real):
        return {"kind": "float", "value": json_float(value)}
    if isinstance(value, (list, tuple)):
        return {
            "kind": "list",
            "items": [
                _encode_value(item, f"{name}/{k}", tensors, owned_storages)
                for k, item in enumerate(value)
            ],
        }
    raise CaptureFormatError(
        f"{name}: cannot store a value of type {type(value).__name__} "
        "(supported: tensor, int, float, bool, None, list)"
    )


def _encode_record(record: CaptureRecord, index: int, encode: Any) -> dict[str, Any]:
    encoded: dict[str, Any] = {
        "debug_handle": list(record.debug_handle),
        "ops": list(record.ops),
        "stack_traces": dict(record.stack_traces),
        "sequence": record.sequence,
        "outputs": [encode(v, f"records/{index}/{j}") for j, v in enumerate(record.outputs)],
    }
    if record.quantization is not None:
        encoded["quantization"] = list(record.quantization)
    encoded["axis_order"] = None if record.axis_order is None else list(record.axis_order)
    if record.invalid_reason is not None:
        encoded["invalid_reason"] = record.invalid_reason
    return encoded


def _storable_tensor(tensor: torch.Tensor, name: str, owned_storages: set[int]) -> torch.Tensor:
    """Return a dense, contiguous CPU tensor that owns its whole storage.

    safetensors refuses tensors that share storage or view part of one;
    captured values may alias each other (an output that is also an input),
    so such tensors are copied.
    """
    if tensor.is_quantized or tensor.layout != torch.strided:
        raise CaptureFormatError(f"{name}: only dense, non-quantized tensors can be stored")
    if tensor.dtype not in _STORABLE_DTYPES:
        raise CaptureFormatError(f"{name}: dtype {tensor.dtype} has no safetensors equivalent")
    result = tensor.detach().to("cpu").resolve_conj().resolve_neg().contiguous()
    if result.numel() == 0:
        return result
    storage = result.untyped_storage()
    if (
        storage.data_ptr() in owned_storages
        or result.storage_offset() != 0
        or storage.nbytes() != result.numel() * result.element_size()
    ):
        result = result.clone()
        storage = result.untyped_storage()
    owned_storages.add(storage.data_ptr())
    return result


def _decode_value(
    value: Any, where: str, handle: Any, tensor_names: set[str], path: str | os.PathLike[str]
) -> Any:
    kind = value.get("kind") if isinstance(value, dict) else None
    if kind == "tensor":
        name = value["name"]
        if name not in tensor_names:
            raise CaptureFormatError(f"{path}: {where} refers to missing tensor '{name}'")
        return handle.get_tensor(name)
    if kind == "null":
        return None
    if kind == "bool" and isinstance(value["value"], bool):
        return value["value"]
    if kind == "int" and isinstance(value["value"], int) and not isinstance(value["value"], bool):
        return value["value"]
    if kind == "float":
        number = value["value"]
        if isinstance(number, str) and number in _NON_FINITE_FROM_JSON:
            return _NON_FINITE_FROM_JSON[number]
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            return float(number)
    if kind == "list":
        return [_decode_value(item, where, handle, tensor_names, path) for item in value["items"]]
    raise CaptureFormatError(f"{path}: {where}: invalid value {value!r}")


def _decode_record(
    raw: dict[str, Any], index: int, decode: Any, path: str | os.PathLike[str]
) -> CaptureRecord:
    where = f"records[{index}]"
    outputs = [decode(v, where) for v in raw["outputs"]]
    try:
        return CaptureRecord(
            debug_handle=tuple(raw["debug_handle"]),
            ops=list(raw["ops"]),
            outputs=outputs,
            sequence=bool(raw["sequence"]),
            stack_traces=dict(raw.get("stack_traces") or {}),
            quantization=raw.get("quantization"),
            axis_order=raw.get("axis_order"),
            invalid_reason=raw.get("invalid_reason"),
        )
    except CaptureFormatError as exc:
        raise CaptureFormatError(f"{path}: {where}: {exc}") from exc
