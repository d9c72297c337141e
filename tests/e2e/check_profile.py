"""Gapscope's timing table against ExecuTorch's Inspector on the same files (issue 26).

usage: check_profile.py GAPSCOPE.json ETDUMP [ETRECORD]

Runs ExecuTorch's own Inspector (Inspector(etdump_path, etrecord).to_dataframe())
and checks every event of every block, in order: the block and event names,
whether delegated, the delegate's id and backend, the raw durations (one per
run) and p10, p50, p90, avg, min, max, each to 1e-9 relative. Prints how many
numbers agreed; exits 1 on the first disagreement, saying where.
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


def main() -> int:
    mine = json.load(open(sys.argv[1]))["events"]
    kwargs = {"etrecord": sys.argv[3]} if len(sys.argv) > 3 else {}
    frame = Inspector(etdump_path=sys.argv[2], **kwargs).to_dataframe()
    unit = " (ms)" if mine and json.load(open(sys.argv[1]))["time_scale"] == "ms" else None
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
