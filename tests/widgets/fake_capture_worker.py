#!/usr/bin/env python3
"""A stand-in for `gapscope-capture serve` in the app's tests (tst_capture_offer).

usage: fake_capture_worker.py SOURCE_CAPTURE [--slow] [--fail] serve

Speaks the worker's protocol (python/gapscope_capture/session_capture.py): says
ready, reads one request line, reports progress, and writes the request's
output by copying SOURCE_CAPTURE (a real capture of the session under test),
through a temporary file and a rename as the exporter does. --slow waits for
ever after the first progress line (to be cancelled); --fail reports an error.
The real exporter is run by the end-to-end tests (compare --make-capture).
"""

import json
import os
import shutil
import sys
import time

source = sys.argv[1]
slow, fail = "--slow" in sys.argv, "--fail" in sys.argv
print(json.dumps({"event": "ready", "startup_cpu_seconds": 0.0}), flush=True)
line = sys.stdin.readline()
if not line.strip():
    sys.exit(0)
request = json.loads(line)
print(json.dumps({"event": "progress", "stage": "running the reference graph", "fraction": 0.5}), flush=True)
if slow:
    while True:
        time.sleep(1)
if fail:
    print("Traceback: a library's complaint on stderr", file=sys.stderr, flush=True)
    print(json.dumps({"event": "error", "message": "the ETRecord has no representative inputs"}), flush=True)
    sys.exit(1)
output = request["output"]
if os.path.exists(output):
    print(json.dumps({"event": "error", "message": f"{output}: already exists; not replaced"}), flush=True)
    sys.exit(1)
shutil.copyfile(source, output + ".partial")
os.replace(output + ".partial", output)
print(json.dumps({"event": "done", "output": output, "records": 1, "reference_graph": "exported_program"}), flush=True)
