"""Check Gapscope's QNN rows against ExecuTorch's QNN debugger on one session.

usage: check_parity.py [--expect-refused] [--require-ops OP,OP,...] SESSION_DIR GAPSCOPE_JSON

- With qnn_debugger_cosine.csv: for every node the debugger scored, Gapscope has
  one row with the same debug handle, status `ok` and a cosine equal within 1e-5.
- With qnn_debugger_error.txt (ExecuTorch's debugger raised): every Gapscope row is
  `ok`, and the rows ExecuTorch cannot produce (multi-output nodes) are there.
- --expect-refused: the capture lacks QNN's quantisation (made from the ETRecord
  alone): every row whose device tensor is an integer type is `invalid` with the
  reason, and none carries a number.
- Otherwise the session is healthy: no first divergence and no warning.
- --require-ops: each named ATen op (e.g. aten_rms_norm_default) has an `ok` row, so a
  model's characteristic ops (RMSNorm, RoPE's cat, softmax) cannot drop out unseen.

Prints one line per node and a summary line; exits 1 on a mismatch.
"""
import csv
import json
import os
import sys

TOLERANCE = 1e-5


def check_debugger_table(session, rows):
    with open(f"{session}/qnn_debugger_cosine.csv", newline="") as f:
        scored = [r for r in csv.DictReader(f) if r["cosine_similarity"] not in ("", None)]
    by_handle = {}
    for row in rows:
        by_handle.setdefault(tuple(row["aot_debug_handle"]), []).append(row)
    failures = 0
    worst = 0.0
    for node in scored:
        handle = (int(node["debug_handle"]),)
        expected = float(node["cosine_similarity"])
        matches = by_handle.get(handle, [])
        problem = None
        if len(matches) != 1:
            problem = f"{len(matches)} Gapscope rows"
        else:
            row = matches[0]
            if row["status"] != "ok":
                problem = f"status {row['status']}: {row['reason']}"
            else:
                got = row["metrics"]["cosine"]
                worst = max(worst, abs(got - expected))
                if abs(got - expected) > TOLERANCE:
                    problem = f"cosine {got!r} against {expected!r}"
        failures += problem is not None
        print(
            f"{'FAIL' if problem else 'ok  '} {node['name']:<40} handle {handle[0]:<4} "
            f"debugger {expected:.9f}" + (f"  {problem}" if problem else "")
        )
    print(
        f"parity: {len(scored) - failures} of {len(scored)} scored nodes agree "
        f"(worst |cosine difference| {worst:.2e})"
    )
    return bool(scored) and failures == 0


def check_where_debugger_raised(session, rows):
    with open(f"{session}/qnn_debugger_error.txt") as f:
        print(f"ExecuTorch's QNN debugger raised: {f.read().strip()}")
    bad = [r for r in rows if r["status"] != "ok"]
    for row in bad:
        print(f"FAIL {','.join(row['aot_ops'])}: {row['status']}: {row['reason']}")
    beyond = [r for r in rows if not r["in_executorch"]]
    print(
        f"gapscope: {len(rows) - len(bad)} of {len(rows)} rows ok, "
        f"{len(beyond)} of them beyond ExecuTorch (multi-output nodes)"
    )
    return bool(rows) and not bad and bool(beyond)


def check_refused(rows):
    integer = ("int8", "uint8", "int16", "uint16")
    failures = 0
    quantised = 0
    for row in rows:
        if not any(d.split(" vs ")[-1].split(" ")[0] in integer for d in row["dtypes"]):
            continue
        quantised += 1
        if row["status"] != "invalid" or row["metrics"] or "quantisation" not in (row["reason"] or ""):
            failures += 1
            print(f"FAIL {','.join(row['aot_ops'])}: {row['status']} {row['reason']}")
    print(f"refused: {quantised - failures} of {quantised} quantised rows refused with the reason")
    return quantised > 0 and failures == 0


def check_healthy(report):
    divergence = report["first_divergence"]
    warnings = report["warnings"]
    for warning in warnings:
        print(f"FAIL warning on a healthy session: {warning}")
    if divergence:
        print(f"FAIL first divergence on a healthy session: {divergence}")
    return not divergence and not warnings


def check_required_ops(rows, ops):
    if not ops:
        return True
    seen = {op for row in rows if row["status"] == "ok" for op in row["aot_ops"]}
    missing = [op for op in ops if op not in seen]
    print(f"required ops: {len(ops) - len(missing)} of {len(ops)} have an ok row"
          + (f"; missing {', '.join(missing)}" if missing else ""))
    return not missing


def main(argv):
    args = list(argv)
    refused = "--expect-refused" in args
    if refused:
        args.remove("--expect-refused")
    required = []
    if "--require-ops" in args:
        at = args.index("--require-ops")
        required = args[at + 1].split(",")
        del args[at:at + 2]
    session, path = args
    report = json.load(open(path))
    rows = report["rows"]
    if refused:
        ok = check_refused(rows)
    else:
        if os.path.exists(f"{session}/qnn_debugger_cosine.csv"):
            ok = check_debugger_table(session, rows)
        else:
            ok = check_where_debugger_raised(session, rows)
        ok = check_healthy(report) and ok
    return 0 if ok and check_required_ops(rows, required) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
