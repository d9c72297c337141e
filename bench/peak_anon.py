#!/usr/bin/env python3
"""Runs a command and reports its peak anonymous memory (RssAnon of
/proc/PID/status, polled every 2 ms: heap and stacks, not the pages of files
it maps), its peak resident memory (VmHWM) and its wall time, as one JSON
object. usage: peak_anon.py COMMAND [ARGS...]"""
import json
import subprocess
import sys
import time


def field(pid: int, name: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(name + ":"):
                    return int(line.split()[1])  # kB
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def main() -> int:
    started = time.monotonic()
    child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_anon = peak_rss = 0
    while child.poll() is None:
        peak_anon = max(peak_anon, field(child.pid, "RssAnon"))
        peak_rss = max(peak_rss, field(child.pid, "VmHWM"))
        time.sleep(0.002)
    seconds = time.monotonic() - started
    print(json.dumps({"peak_anon_mib": round(peak_anon / 1024, 1), "peak_rss_mib": round(peak_rss / 1024, 1),
                      "seconds": round(seconds, 3), "exit_code": child.returncode}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
