#!/usr/bin/env python3
"""The tables of a single-copy threshold sweep (results/measured/<machine>/shm/threshold-sweep-*/run.sh):
files <collective>_np<ranks>_sc<threshold>_r<round>.txt, each one ccbench launch of --backend mpi,cclab.
Per collective and threshold: how many (ranks, size) cells have cclab's out-of-place algbw at or above the
MPI library's (the side-by-side ratio, median over the rounds), the lowest and the median of those
ratios. With --sizes: every cell, one column per threshold.

Usage: scripts/single_copy_sweep_table.py [--sizes] <folder>
"""
import collections
import glob
import os
import re
import statistics
import sys

NAME = re.compile(r"(\w+?)_np(\d+)_sc(\w+)_r(\d+)\.txt$")


def ratios(folder):
    """(collective, ranks, threshold, size) -> the side-by-side ratios of the rounds."""
    cells = collections.defaultdict(list)
    for path in glob.glob(os.path.join(folder, "*_sc*_r*.txt")):
        m = NAME.search(os.path.basename(path))
        if not m:
            continue
        collective, ranks, threshold, _ = m.groups()
        side = False
        for line in open(path):
            if "Side by side" in line:
                side = True
                continue
            fields = line.split()
            if side and len(fields) >= 8 and fields[1].isdigit():
                cells[(collective, int(ranks), threshold, int(fields[1]))].append(float(fields[-1]))
    return cells


def main():
    args = sys.argv[1:]
    per_size = args[:1] == ["--sizes"]
    if per_size:
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: scripts/single_copy_sweep_table.py [--sizes] <folder>")
    cells = ratios(args[0])
    if not cells:
        sys.exit(f"no sweep outputs under {args[0]}")
    thresholds = sorted({k[2] for k in cells}, key=lambda t: int(t[:-1]) * 1024 if t.endswith("K") else int(t))
    collectives = sorted({k[0] for k in cells})
    median = {k: statistics.median(v) for k, v in cells.items()}
    if per_size:
        print("| collective | ranks | size (B) | " + " | ".join(f"`{t}`" for t in thresholds) + " |")
        print("| --- | --- | --- |" + " --- |" * len(thresholds))
        for key in sorted({(c, n, s) for c, n, _, s in cells}):
            c, n, s = key
            print(f"| {c} | {n} | {s} | " + " | ".join(f"{median[(c, n, t, s)]:.2f}" if (c, n, t, s) in median else "" for t in thresholds) + " |")
        return
    print("| collective | " + " | ".join(f"`{t}`" for t in thresholds) + " |")
    print("| --- |" + " --- |" * len(thresholds))
    for c in collectives:
        row = []
        for t in thresholds:
            values = [v for (c2, _, t2, _), v in median.items() if c2 == c and t2 == t]
            row.append(f"{sum(v >= 1.0 for v in values)} of {len(values)}, lowest {min(values):.2f}, median {statistics.median(values):.2f}")
        print(f"| {c} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    from script_errors import guard
    guard(main, "usage: scripts/single_copy_sweep_table.py [--sizes] <folder>")
