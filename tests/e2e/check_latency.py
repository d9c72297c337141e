"""Each row's time in Gapscope's report against ExecuTorch's Inspector's events (issue 26).

usage: check_latency.py [--min-timed N] GAPSCOPE.json ETDUMP ETRECORD

The report's `latency` (docs/profiling.md, "Latency beside the gap") is checked
against the Inspector's own EventBlocks on the same files, not against
Gapscope's timing table:
- the block: the one whose runs include the compared run; `runs` its run count,
  `execute_p50` numpy's median of its Method::execute durations;
- operator and delegate calls: the row's instructions are the compared one and
  every instruction whose Inspector event carries only handles of the row's
  runtime_debug_handle; p50 is numpy's median of the run-by-run sums of their
  OPERATOR_CALL (or DELEGATE_CALL) durations;
- QNN's cycles: the Inspector's event of that name, its median × 10^6 (the
  Inspector scales cycles as ns), over the median cycles of every
  "<node>:OpId_<n> (cycles)" event of the call, × the DELEGATE_CALL's median;
- share = p50 / execute_p50.
Each to 1e-9 relative. --min-timed N: at least N rows carry a time.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from executorch.devtools import Inspector

RELATIVE = 1e-9


def close(a, b):
    return a == b or abs(a - b) <= RELATIVE * max(abs(a), abs(b))


def handles(event):
    h = event.debug_handles
    if h is None:
        return []
    return [h] if isinstance(h, int) else list(h)


def main() -> int:
    args = sys.argv[1:]
    min_timed = 0
    if args[0] == "--min-timed":
        min_timed = int(args[1])
        args = args[2:]
    report = json.load(open(args[0]))
    latency = report["latency"]
    if latency is None:
        print("check_latency: the report has no latency")
        return 1
    run = report["provenance"]["settings"]["run"]
    inspector = Inspector(etdump_path=args[1], etrecord=args[2])
    # The Inspector's blocks keep the ETDump's run order: the compared run's block
    # is the one whose run count range covers it (blocks group equal runs).
    blocks = inspector.event_blocks
    block = None
    seen = 0
    for b in blocks:
        n = len(next(e.perf_data.raw for e in b.events if e.perf_data is not None)) if any(
            e.perf_data is not None for e in b.events) else 1
        if seen <= run < seen + n:
            block = b
            break
        seen += n
    assert block is not None, f"no Inspector block holds run {run}"
    execute = [e for e in block.events if e.name == "Method::execute"]
    runs = len(execute[0].perf_data.raw)
    problems = []
    if latency["runs"] != runs:
        problems.append(f"runs {latency['runs']}, the Inspector's block has {runs}")
    execute_p50 = float(np.percentile(execute[0].perf_data.raw, 50))
    if not close(latency["execute_p50"], execute_p50):
        problems.append(f"execute_p50 {latency['execute_p50']}, the Inspector {execute_p50}")

    calls = {}
    for e in block.events:
        if not e.is_delegated_op and e.name in ("OPERATOR_CALL", "DELEGATE_CALL") and e.perf_data is not None:
            calls[e._instruction_id] = e
    owners = {}
    for e in block.events:
        if not e.is_delegated_op and handles(e) and e._instruction_id is not None:
            owners.setdefault(e._instruction_id, set()).update(handles(e))
    checked = 0
    for row in report["rows"]:
        t = row["latency"]
        if t is None or t["p50"] is None:
            continue
        where = f"row {row['index']} ({', '.join(row['aot_ops'])})"
        if t["source"] in ("operator_call", "delegate_call"):
            tuple_ = set(row["runtime_debug_handle"])
            expected = {i for i, hs in owners.items() if hs and hs <= tuple_ and i in calls}
            mine = set(t["instructions"])
            if not expected <= mine or not all(i in calls for i in mine):
                problems.append(f"{where}: instructions {sorted(mine)}, the Inspector's within the row's handles "
                                f"{sorted(expected)}")
                continue
            sums = np.sum([calls[i].perf_data.raw for i in sorted(mine)], axis=0)
            want = float(np.percentile(sums, 50))
        elif t["source"] == "delegate_cycles":
            (instruction,) = t["instructions"]
            ops = [e for e in block.events if e.is_delegated_op and e._instruction_id == instruction
                   and e.perf_data is not None and ":OpId_" in e.name and e.name.endswith("(cycles)")]
            mine = next(e for e in ops if e.name == t["event"])
            cycles = float(np.percentile(mine.perf_data.raw, 50)) * 1e6
            total = sum(float(np.percentile(e.perf_data.raw, 50)) for e in ops) * 1e6
            if not close(t["cycles"], cycles) or not close(t["call_cycles"], total):
                problems.append(f"{where}: cycles {t['cycles']}/{t['call_cycles']}, the Inspector {cycles}/{total}")
                continue
            want = float(np.percentile(calls[instruction].perf_data.raw, 50)) * cycles / total
        else:
            problems.append(f"{where}: unexpected source {t['source']}")
            continue
        if not close(t["p50"], want):
            problems.append(f"{where}: p50 {t['p50']}, the Inspector {want}")
        elif not close(t["share"], want / execute_p50):
            problems.append(f"{where}: share {t['share']}, the Inspector {want / execute_p50}")
        checked += 1
    if checked < min_timed:
        problems.append(f"{checked} rows timed, expected at least {min_timed}")
    for p in problems[:10]:
        print("check_latency:", p)
    if problems:
        return 1
    print(f"check_latency: {checked} rows' times equal the Inspector's events to {RELATIVE:g} relative "
          f"({runs} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
