"""A device's folder to its reference capture in one request (issue 60).

A user who gets a folder from a device (ETRecord, ETDump, debug buffer, the
inputs the device ran on) has no reference yet. ``make_session_capture`` makes
it as ``from-etrecord`` does, with the inputs found beside the ETRecord, and
reports its progress. Two commands serve it:

- ``gapscope-capture for-session ETRECORD -o CAPTURE``: what ``gapscope-cli
  compare DIR --make-capture`` runs; progress on standard error;
- ``gapscope-capture serve``: the app's worker. Started in the background when
  a folder without a capture is opened, it imports torch and ExecuTorch at
  once (most of a capture's cost on a small model) and prints
  ``{"event": "ready"}``; then it reads one request, a JSON line
  ``{"etrecord": …, "output": …, "method": …}``, on standard input, prints
  ``{"event": "progress", "stage": …, "fraction": …}`` lines and one
  ``{"event": "done", …}`` or ``{"event": "error", "message": …}``, and exits.
  The app cancels by ending the process; the capture is written atomically, so
  nothing half-written is left.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, TextIO

from gapscope_capture.capture_errors import CaptureError, CaptureFormatError

Progress = Callable[[str, float], None]


def find_inputs(folder: Path) -> Path | None:
    """The one safetensors file in ``folder`` holding ``inputs/0`` (and no capture), or None.

    Several are refused: which execution a session's run is cannot be guessed.
    """
    from safetensors import safe_open

    from gapscope_capture.capture_format import METADATA_KEY

    found = []
    for path in sorted(folder.glob("*.safetensors")):
        try:
            with safe_open(str(path), "pt") as handle:
                if METADATA_KEY in (handle.metadata() or {}):
                    continue
                if "inputs/0" in handle.keys():
                    found.append(path)
        except Exception:  # not a safetensors file after all: not inputs
            continue
    if len(found) > 1:
        raise CaptureError(
            f"{folder}: several inputs files ({', '.join(p.name for p in found)}): make the capture "
            "with gapscope-capture from-etrecord ETRECORD --inputs FILE (one per execution, in order)"
        )
    return found[0] if found else None


def make_session_capture(
    etrecord: Path, output: Path, method: str = "forward", progress: Progress | None = None
) -> dict[str, Any]:
    """Capture ``etrecord``'s reference graph on the inputs beside it into ``output``.

    Returns what was written: the output, the records, the reference graph and
    the inputs used (None: the ETRecord's representative inputs).
    """
    from gapscope_capture.capture_format import read_inputs
    from gapscope_capture.etrecord_capture import capture_etrecord_graph

    report = progress or (lambda stage, fraction: None)
    if output.exists():
        raise CaptureError(f"{output}: already exists; not replaced")
    report("finding the inputs", 0.01)
    inputs_file = find_inputs(etrecord.parent)
    inputs = read_inputs(inputs_file) if inputs_file else None
    result, _ = capture_etrecord_graph(etrecord, inputs, method=method, progress=report)
    report("writing the capture", 0.95)
    result.write(output)
    report("done", 1.0)
    return {
        "output": str(output),
        "records": len(result.records),
        "reference_graph": result.reference_graph,
        "inputs": str(inputs_file) if inputs_file else None,
    }


def serve(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """The app's worker: imports first, then one request (see the module's docstring)."""

    def emit(event: dict[str, Any]) -> None:
        stdout.write(json.dumps(event) + "\n")
        stdout.flush()

    import gapscope_capture.etrecord_capture  # noqa: F401  torch and ExecuTorch, paid before the request

    # The CPU the process spent to be ready: mostly these imports.
    emit({"event": "ready", "startup_cpu_seconds": round(time.process_time(), 3)})
    line = stdin.readline()
    if not line.strip():
        return 0  # the app closed the pipe: not needed after all
    try:
        request = json.loads(line)
        etrecord, output = Path(request["etrecord"]), Path(request["output"])
        method = request.get("method") or "forward"
    except (ValueError, KeyError, TypeError) as exc:
        emit({"event": "error", "message": f"bad request: {exc}"})
        return 2
    started = time.monotonic()
    try:
        done = make_session_capture(
            etrecord, output, method, lambda stage, fraction: emit(
                {"event": "progress", "stage": stage, "fraction": round(fraction, 4)}
            )
        )
    except (CaptureError, CaptureFormatError) as exc:
        emit({"event": "error", "message": str(exc)})
        return 1
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        emit({"event": "error", "message": f"{where}{exc.strerror or exc}"})
        return 1
    except Exception as exc:  # the worker reports, never dies silently
        emit({"event": "error", "message": f"{type(exc).__name__}: {exc}"})
        return 1
    emit({"event": "done", "seconds": round(time.monotonic() - started, 3)} | done)
    return 0
