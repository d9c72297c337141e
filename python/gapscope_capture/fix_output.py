"""What ``gapscope-capture fix`` writes (issue 59): fix.json, fix.md (the ranked
table), snippet.py and ``fixed/``, the best configuration run again as a Gapscope
session with its quantised simulation and float reference. The search itself is
``fix``."""

from __future__ import annotations

import json
import math
from pathlib import Path

from torch.export import ExportedProgram

from gapscope_capture.capture_errors import CaptureFormatError
from gapscope_capture.capture_format import atomic_output
from gapscope_capture.fix import FIXED_SESSION, FixResult, _Runner, _finite

def write_fix(result: FixResult, outdir: Path, float_program: ExportedProgram) -> Path:
    """fix.json, fix.md, snippet.py and the best set's session (fixed/) into ``outdir``."""
    outdir.mkdir(parents=True, exist_ok=True)
    runner: _Runner = result.runner
    best = result.best or result.baseline
    session = outdir / FIXED_SESSION
    verified = runner.run(best.keep_float, session)
    if verified.error:
        raise CaptureFormatError(f"the best configuration did not run again: {verified.error}")
    from gapscope_capture.capture import capture_from_etrecord
    from gapscope_capture.float_reference import capture_float_reference

    capture = capture_from_etrecord(session / "etrecord.bin")
    capture.write(session / "capture.gscap.safetensors")
    capture_float_reference(float_program, capture).write(session / "capture_float.gscap.safetensors")
    document = result.to_json()
    document["fixed_session"] = {
        "path": FIXED_SESSION,
        "output_snr_db": _finite(verified.output_snr_db),
        "keep_float": verified.keep_float,
    }
    _write_text(outdir / "fix.json", json.dumps(document, indent=1) + "\n")
    _write_text(outdir / "fix.md", fix_markdown(result))
    _write_text(outdir / "snippet.py", result.snippet)
    return outdir


def fix_markdown(result: FixResult) -> str:
    def num(v: float | None, unit: str = "") -> str:
        return "—" if v is None else ("inf" if math.isinf(v) else f"{v:.1f}{unit}")

    b = result.baseline
    lines = [
        f"# gapscope-capture fix: {result.recipe}, target {result.target}",
        "",
        f"**{'Met' if result.met else 'Not met'}**: {result.stopped}. Baseline output SNR "
        f"{num(b.output_snr_db, ' dB')}; best {num(result.best.output_snr_db if result.best else None, ' dB')} "
        f"with {', '.join(result.best.keep_float) if result.best and result.best.keep_float else 'nothing'} "
        "kept in float. Every number is of a program lowered and run on this machine.",
        "",
        "| candidate | why | output SNR before → after | recovered dB | size | ops outside delegates | latency ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in sorted(result.candidates, key=lambda c: -(c.recovered_db if c.recovered_db is not None else -1e9)):
        t = c.trial
        if t is None:
            why = "the baseline meets the target" if result.met and b is result.best else "the time budget ran out"
            lines.append(f"| `{c.module}` | {c.why} | not run ({why}) | | | | |")
            continue
        after = f"failed: {t.error}" if t.error else num(t.output_snr_db, " dB")
        lines.append(
            f"| `{c.module}` | {c.why} | {num(b.output_snr_db)} → {after} | {num(c.recovered_db)} | "
            f"{t.size_bytes - b.size_bytes:+,} B | {t.ops_outside_delegates - b.ops_outside_delegates:+d} | "
            f"{num(t.latency_ms)} |"
        )
    if result.search:
        lines += ["", "Search (each set lowered and run):", ""]
        lines += [f"- {', '.join(t.keep_float)}: {num(t.output_snr_db, ' dB')}" for t in result.search]
    lines += ["", "The configuration (verified):", "", "```python", result.snippet.rstrip(), "```", ""]
    if result.skipped:
        lines += [f"Ops the report flags that no quantised module holds: {', '.join(result.skipped)}.", ""]
    return "\n".join(lines)


def _write_text(path: Path, text: str) -> None:
    with atomic_output(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
