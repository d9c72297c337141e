"""Checks a `gapscope-cli diff --json` document against the two reports it compared.

usage: check_diff.py DIFF.json A.json B.json [--by-handle] [--min-matched N]

- every row of A and of B appears in exactly one pairing (paired, or without a partner);
- each side's values are exactly the values of its own report's row, for every metric;
- delta = b - a and worse_by follow docs/compare-runs.md (levels in dB count up to
  the 100 dB rounding floor; a pair whose references are not one tensor has neither);
- the ranking is by worse_by on the diff's metric, the worst first;
- with --by-handle: the reports number one graph and every pairing rests on the handle.
"""
import argparse
import json
import math
import sys

LOWER_IS_WORSE = {"snr", "sqnr", "cosine", "top1", "top5"}
DECIBELS = {"snr", "sqnr"}
ROUNDING_FLOOR_DB = 100.0
REFERENCES_AGREE_DB = 10.0


def number(v):
    if v is None:
        return None
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    return float(v)


def same(x, y):
    if x is None or y is None:
        return x is None and y is None
    return (math.isnan(x) and math.isnan(y)) or x == y


def main():
    p = argparse.ArgumentParser()
    p.add_argument("diff")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--by-handle", action="store_true")
    p.add_argument("--min-matched", type=int, default=1)
    args = p.parse_args()
    diff = json.load(open(args.diff))
    reports = {"a": json.load(open(args.a)), "b": json.load(open(args.b))}
    assert diff["format"] == "gapscope.diff", diff.get("format")
    for side, report in reports.items():
        assert report["schema_version"] in (2, 3), report.get("schema_version")
        rows = {r["index"]: r for r in report["rows"]}
        seen = [p[side]["row"] for p in diff["pairs"] if p[side] is not None]
        assert sorted(seen) == sorted(rows), f"{side}: rows {sorted(rows)} but pairings list {sorted(seen)}"
        for pair in diff["pairs"]:
            if pair[side] is None:
                continue
            row = rows[pair[side]["row"]]
            assert pair[side]["compared_node"] == row["compared_node"], (side, pair[side], row["compared_node"])
            for metric, values in pair["metrics"].items():
                own = number(row["metrics"].get(metric)) if row["metrics"] else None
                assert same(number(values[side]), own), (side, row["index"], metric, values[side], own)
    counts = diff["counts"]
    matched = [p for p in diff["pairs"] if p["a"] is not None and p["b"] is not None]
    assert counts["matched"] == len(matched) >= args.min_matched, (counts, args.min_matched)
    assert all((p["basis"] == "unmatched") == (p["a"] is None or p["b"] is None) for p in diff["pairs"])
    for p in matched:
        agree = number(p["references_agree_db"])
        disagree = agree is not None and agree < REFERENCES_AGREE_DB
        assert p["ranked"] == (not disagree), p
        assert disagree == (p["note"] or "").startswith("not one tensor"), p
        for metric, v in p["metrics"].items():
            a, b = number(v["a"]), number(v["b"])
            if disagree:
                assert v["delta"] is None and v["worse_by"] is None, (metric, v)
                continue
            if a is None or b is None:
                continue
            want_delta = 0.0 if a == b else b - a
            assert same(number(v["delta"]), want_delta), (metric, v)
            if not math.isnan(a) and not math.isnan(b):
                la, lb = (min(a, ROUNDING_FLOOR_DB), min(b, ROUNDING_FLOOR_DB)) if metric in DECIBELS else (a, b)
                want = 0.0 if la == lb else (la - lb if metric in LOWER_IS_WORSE else lb - la)
                assert same(number(v["worse_by"]), want), (metric, v)
    assert diff["references_disagree"] == sum(1 for p in matched if not p["ranked"])
    for p in diff["pairs"]:
        if p["a"] is None or p["b"] is None:
            assert all(v["delta"] is None and v["worse_by"] is None for v in p["metrics"].values()), p
    metric = diff["metric"]
    keys = [number(diff["pairs"][k]["metrics"][metric]["worse_by"]) for k in diff["ranking"]]
    ranked = [k for k in keys if k is not None]
    assert ranked == sorted(ranked, reverse=True), keys
    assert sorted(diff["ranking"]) == list(range(len(diff["pairs"])))
    if args.by_handle:
        assert diff["matched_by"] == "debug_handle", diff["matched_by"]
        assert all(p["basis"] == "debug_handle" for p in matched)
    top = diff["pairs"][diff["ranking"][0]]
    print(f"diff: {counts['matched']} pairs ({diff['matched_by']}), {counts['a_only']} on A only, "
          f"{counts['b_only']} on B only; worst on {metric}: "
          f"{top['a']['compared_node'] if top['a'] else '-'} -> {top['b']['compared_node'] if top['b'] else '-'} "
          f"({top['metrics'][metric]['worse_by']})")


if __name__ == "__main__":
    sys.exit(main())
