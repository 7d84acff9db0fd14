#!/usr/bin/env python3
"""Medians over the rounds of a folder of this experiment's outputs, out of place, per collective
(file prefix) and size: the MPI library's time, then each variant's cclab time (us), and with
--ratio the library's time over each variant's (>= 1: cclab at or ahead).
File names: <prefix>_before|after_r<round>.json (ab/) or <prefix>_l<variant>_r<round>.json (variants/).
Usage: compare.py [--ratio] <folder>"""
import collections, glob, json, os, re, statistics, sys

ratio = "--ratio" in sys.argv
folder = [a for a in sys.argv[1:] if a != "--ratio"][0]
times = collections.defaultdict(list)
variants = set()
for path in glob.glob(os.path.join(folder, "*.json")):
    m = re.match(r"(.*)_(?:l(\d+)|(before|after))_r(\d+)\.json$", os.path.basename(path))
    prefix, variant = m.group(1), m.group(2) or m.group(3)
    variants.add(variant)
    rows = [r for r in json.load(open(path))["rows"] if not r["in_place"]]
    mpi = {r["size_bytes"]: r["time_us"] for r in rows if r["backend"] == "mpi"}
    for r in rows:
        if r["backend"] == "mpi":
            times[(prefix, r["size_bytes"], "mpi")].append(r["time_us"])
        else:
            times[(prefix, r["size_bytes"], variant)].append(mpi[r["size_bytes"]] / r["time_us"] if ratio else r["time_us"])
variants = sorted(variants, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else -len(v)))  # before, after
for prefix in sorted({k[0] for k in times}):
    print(f"{prefix}: size, mpi us, " + ", ".join(variants) + (" (mpi time / cclab time)" if ratio else " (cclab us)"))
    for size in sorted({k[1] for k in times if k[0] == prefix}):
        cells = [times.get((prefix, size, v)) for v in ["mpi"] + variants]
        print(f"{size:>8}  " + "  ".join(f"{statistics.median(c):6.2f}" if c else "     —" for c in cells))
