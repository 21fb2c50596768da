#!/usr/bin/env python3
"""Runs a command N times and prints its peak resident set size (MiB, the
largest over the runs) and median wall time: `peak_rss.py N CMD...`."""
import os
import statistics
import subprocess
import sys
import time

runs, cmd = int(sys.argv[1]), sys.argv[2:]
peaks, walls = [], []
for _ in range(runs):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    walls.append(time.perf_counter() - start)
    peaks.append(usage.ru_maxrss / 1024.0)
print("%.1f %.4f" % (max(peaks), statistics.median(walls)))
