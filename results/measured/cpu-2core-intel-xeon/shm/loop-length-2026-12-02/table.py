#!/usr/bin/env python3
"""Per collective, ranks and size, before and after: cclab's out-of-place algbw over the MPI
library's in the same launch (median over the rounds) and cclab's loop length (iters x time, ms,
median over the rounds)."""
import collections, glob, json, os, re, statistics, sys
here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
ratio = collections.defaultdict(list)
loop = collections.defaultdict(list)
for path in glob.glob(os.path.join(here, "*.json")):
    collective, ranks, variant = re.match(r"(\w+?)_np(\d)_(before|after)_r\d+\.json", os.path.basename(path)).groups()
    rows = [r for r in json.load(open(path))["rows"] if not r["in_place"] and r["size_bytes"] > 0]
    mpi = {r["size_bytes"]: r for r in rows if r["backend"] == "mpi"}
    for r in rows:
        if r["backend"] == "cclab":
            key = (collective, int(ranks), r["size_bytes"], variant)
            ratio[key].append(mpi[r["size_bytes"]]["time_us"] / r["time_us"])
            loop[key].append(r["iters"] * r["time_us"] / 1000)
print("| collective | N | bytes | cclab ÷ MPI, before | after | cclab's loop, ms, before | after |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for key in sorted({k[:3] for k in ratio}):
    b, a = key + ("before",), key + ("after",)
    print(f"| {key[0]} | {key[1]} | {key[2]} | {statistics.median(ratio[b]):.2f} | {statistics.median(ratio[a]):.2f} "
          f"| {statistics.median(loop[b]):.1f} | {statistics.median(loop[a]):.1f} |")
