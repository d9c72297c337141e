"""Gapscope's Model Explorer overlays against Model Explorer itself (issue 26).

usage: check_model_explorer.py OVERLAY_DIR REPORT.json ETRECORD [--min-nodes N]

- Each file is read back through Model Explorer's own data classes
  (model_explorer.node_data_builder: ModelNodeData, GraphNodeData,
  NodeDataResult, GradientItem) and written again by them: the same document.
- Its graph id and every node key exist in the graph that ExecuTorch's ETRecord
  adapter for Model Explorer (etrecord_adapter_model_explorer) builds from the
  same ETRecord: the overlay lands on the adapter's nodes.
- Each node's SNR, rel. L2 and time equal the report's rows that compare the
  node carrying that debug handle in the adapter's graph (the worst of several).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

from etrecord_adapter_model_explorer.builder.builder import ETRecordGraphBuilder
from model_explorer import node_data_builder as ndb

FILES = {
    "gapscope-snr.json": ("snr", min),
    "gapscope-rel-l2.json": ("rel_l2", max),
    "gapscope-time-ms.json": ("time", max),
    "gapscope-time-share.json": ("share", max),
}


def row_value(row, key):
    if key in ("snr", "rel_l2"):
        return row["metrics"].get(key)
    lat = row.get("latency") or {}
    if key == "time":
        return lat.get("p50")
    return None if lat.get("share") is None else 100 * lat["share"]


def main() -> int:
    args = sys.argv[1:]
    min_nodes = 1
    if "--min-nodes" in args:
        i = args.index("--min-nodes")
        min_nodes = int(args[i + 1])
        del args[i : i + 2]
    folder, report_path, etrecord = args
    report = json.load(open(report_path))
    graphs = {g.id: g for c in ETRecordGraphBuilder(Path(etrecord), {}).build() for g in c.graphs}
    problems = []
    checked = 0
    for name, (key, worst) in FILES.items():
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            if key in ("snr", "rel_l2"):
                problems.append(f"{name} is missing")
            continue
        doc = json.load(open(path))
        model = ndb.ModelNodeData(graphsData={
            graph: ndb.GraphNodeData(
                results={k: ndb.NodeDataResult(**v) for k, v in data["results"].items()},
                name=data.get("name"),
                gradient=[ndb.GradientItem(**g) for g in data.get("gradient", [])],
            )
            for graph, data in doc.items()
        })
        if json.loads(model.to_json_string()) != doc:
            problems.append(f"{name}: Model Explorer's classes write another document")
        for graph_id, data in doc.items():
            graph = graphs.get(graph_id)
            if graph is None:
                problems.append(f"{name}: graph '{graph_id}' is not one of the adapter's {sorted(graphs)}")
                continue
            handles = {}
            for node in graph.nodes:
                for attr in node.attrs:
                    if attr.key == "debug_handle":
                        try:
                            handles[node.id] = int(str(attr.value))
                        except ValueError:
                            pass
            ids = {n.id for n in graph.nodes}
            missing = [k for k in data["results"] if k not in ids]
            if missing:
                problems.append(f"{name}: {len(missing)} keys are not nodes of the adapter's graph: {missing[:5]}")
            for node_id, result in data["results"].items():
                if node_id not in handles:
                    problems.append(f"{name}: node {node_id} has no debug_handle in the adapter's graph")
                    continue
                values = [row_value(r, key) for r in report["rows"] if r.get("compared_handle") == handles[node_id]]
                values = [v for v in values if v is not None and math.isfinite(v)]
                if not values:
                    problems.append(f"{name}: node {node_id} (handle {handles[node_id]}) has no row in the report")
                    continue
                want = worst(values)
                if not math.isclose(result["value"], want, rel_tol=1e-12, abs_tol=0):
                    problems.append(f"{name}: node {node_id}: {result['value']}, the report {want}")
                checked += 1
            if key == "snr" and len(data["results"]) < min_nodes:
                problems.append(f"{name}: {len(data['results'])} nodes, expected at least {min_nodes}")
    for p in problems[:10]:
        print("check_model_explorer:", p)
    if problems:
        return 1
    print(f"check_model_explorer: {checked} node values land on the ETRecord adapter's nodes and equal the report's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
