"""Check Gapscope's QNN rows against ExecuTorch's QNN debugger on one session.

usage: check_parity.py SESSION_DIR GAPSCOPE_JSON

For every node the debugger scored (a `cosine_similarity` in
qnn_debugger_cosine.csv), Gapscope must have a row with the same debug handle,
status `ok`, a dequantised and re-laid-out comparison, and a cosine equal
within 1e-5. Prints one line per node and a summary; exits 1 on a mismatch.
"""
import csv
import json
import sys

TOLERANCE = 1e-5


def main():
    session, report = sys.argv[1], sys.argv[2]
    with open(f"{session}/qnn_debugger_cosine.csv", newline="") as f:
        scored = [r for r in csv.DictReader(f) if r["cosine_similarity"] not in ("", None)]
    rows = json.load(open(report))["rows"]
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
        print(f"{'FAIL' if problem else 'ok  '} {node['name']:<40} handle {handle[0]:<4} "
              f"debugger {expected:.9f}" + (f"  {problem}" if problem else ""))
    print(f"parity: {len(scored) - failures} of {len(scored)} scored nodes agree "
          f"(worst |cosine difference| {worst:.2e})")
    if not scored:
        print("parity: the debugger scored no node", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
