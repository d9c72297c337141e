"""Gapscope's timing table against ExecuTorch's Inspector on the same files (issue 26).

usage: check_profile.py [--min-delegate-timed N] [--min-runs R] GAPSCOPE.json ETDUMP [ETRECORD]

Runs ExecuTorch's own Inspector (Inspector(etdump_path, etrecord).to_dataframe())
and checks every event of every block, in order: the block and event names,
whether delegated, the delegate's id and backend, the raw durations (one per
run) and p10, p50, p90, avg, min, max, each to 1e-9 relative. Prints how many
numbers agreed; exits 1 on the first disagreement, saying where.

--min-delegate-timed N: the backend's own profiling was on, so at least N events
inside delegate calls carry durations (XNNPACK's per-op events, QNN's profile
level), not only the delegate call itself. --min-runs R: every execute block
holds at least R runs, so p10..p90 are over several durations.
"""

from __future__ import annotations

import json
import math
import sys

import pandas as pd
from executorch.devtools import Inspector

RELATIVE = 1e-9
STATS = ("p10", "p50", "p90", "avg", "min", "max")


def _none(value):
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a == b or abs(a - b) <= RELATIVE * max(abs(a), abs(b))


def _options(argv):
    minimums = {"--min-delegate-timed": 0, "--min-runs": 0}
    rest = []
    while argv:
        arg = argv.pop(0)
        if arg in minimums:
            minimums[arg] = int(argv.pop(0))
        else:
            rest.append(arg)
    return minimums["--min-delegate-timed"], minimums["--min-runs"], rest


def _check_minimums(mine, min_delegate_timed, min_runs) -> bool:
    timed = [e for e in mine if e["is_delegated_op"] and e["raw"]]
    if len(timed) < min_delegate_timed:
        print(f"check_profile: {len(timed)} delegate-internal events carry durations, expected at least "
              f"{min_delegate_timed}: was the backend's profiling on?")
        return False
    runs = [len(e["raw"]) for e in mine if e["event_name"] == "Method::execute"]
    if min_runs and (not runs or min(runs) < min_runs):
        print(f"check_profile: Method::execute has {runs} runs, expected at least {min_runs}")
        return False
    if min_delegate_timed or min_runs:
        print(f"check_profile: {len(timed)} delegate-internal events timed, {min(runs) if runs else 0} runs")
    return True


def main() -> int:
    min_delegate_timed, min_runs, args = _options(sys.argv[1:])
    mine = json.load(open(args[0]))["events"]
    if not _check_minimums(mine, min_delegate_timed, min_runs):
        return 1
    kwargs = {"etrecord": args[2]} if len(args) > 2 else {}
    frame = Inspector(etdump_path=args[1], **kwargs).to_dataframe()
    unit = " (ms)" if mine and json.load(open(args[0]))["time_scale"] == "ms" else None
    if unit is None:
        print("check_profile: compare in the Inspector's default scale (ms)")
        return 1
    theirs = [row for _, row in frame.iterrows()]
    if len(theirs) != len(mine):
        print(f"check_profile: {len(mine)} events, the Inspector has {len(theirs)}")
        return 1
    numbers = 0
    for k, (m, t) in enumerate(zip(mine, theirs)):
        where = f"event {k} ({t['event_block_name']} / {t['event_name']})"
        for column in ("event_block_name", "event_name", "is_delegated_op"):
            if m[column] != t[column]:
                print(f"check_profile: {where}: {column} {m[column]!r}, the Inspector {t[column]!r}")
                return 1
        backend = _none(t["delegate_backend_name"]) or None
        if m["delegate_backend_name"] != backend:
            print(f"check_profile: {where}: delegate_backend_name {m['delegate_backend_name']!r}, the Inspector {backend!r}")
            return 1
        ident = _none(t["delegate_debug_identifier"])
        if m["delegate_debug_identifier"] != ident:
            print(f"check_profile: {where}: delegate_debug_identifier {m['delegate_debug_identifier']!r}, the Inspector {ident!r}")
            return 1
        raw = t["raw"]
        raw = None if raw is None or (isinstance(raw, float) and math.isnan(raw)) else [float(x) for x in raw]
        if (m["raw"] is None) != (raw is None) or (raw is not None and len(raw) != len(m["raw"])):
            print(f"check_profile: {where}: raw {m['raw']}, the Inspector {raw}")
            return 1
        for a, b in zip(m["raw"] or [], raw or []):
            if not _close(a, b):
                print(f"check_profile: {where}: raw {m['raw']}, the Inspector {raw}")
                return 1
            numbers += 1
        for s in STATS:
            b = _none(t[s + unit])
            b = None if b is None else float(b)
            if not _close(m[s], b):
                print(f"check_profile: {where}: {s} {m[s]!r}, the Inspector {b!r}")
                return 1
            numbers += b is not None
    print(f"check_profile: {len(mine)} events, {numbers} numbers equal ExecuTorch's Inspector's to {RELATIVE:g} relative")
    return 0


if __name__ == "__main__":
    pd.set_option("mode.chained_assignment", None)
    sys.exit(main())
