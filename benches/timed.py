#!/usr/bin/env python3
"""Runs a command timed to the microsecond: wall from the clock, CPU (user + system) and peak
RSS from the child's rusage (`os.wait4`). Every bench script times its runs with it:
`/usr/bin/time` prints hundredths of a second, a third of a small tree's ~30 ms cold map,
and its rounding alone moved javapoet's cold ÷ floor from 1.07x to 1.28x.

    benches/timed.py STDOUT_FILE TIME_FILE CMD...

writes CMD's stdout to STDOUT_FILE, its stderr to TIME_FILE.err, and "wall_s rss_mb cpu_s"
to TIME_FILE. Python scripts import `measure` instead.
"""
import os
import subprocess
import sys
import time


def measure(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
    """(wall s, CPU s, peak RSS MB, wait status) of one run of `cmd`."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, status


def main():
    out, times, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(out, "wb") as o, open(times + ".err", "wb") as err:
        wall, cpu, rss, _ = measure(cmd, stdout=o, stderr=err)
    with open(times, "w") as f:
        f.write(f"{wall:.6f} {rss:.0f} {cpu:.6f}\n")


if __name__ == "__main__":
    main()
