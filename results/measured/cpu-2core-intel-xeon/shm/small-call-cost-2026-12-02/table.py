#!/usr/bin/env python3
"""Per collective, ranks and size (8 B-4 KiB), before and after: cclab's out-of-place time (us,
median over the rounds), after / before, and cclab's algbw over the MPI library's in the same
launch (median over the rounds)."""
import collections, glob, json, os, re, statistics, sys
here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
own = collections.defaultdict(list)
ratio = collections.defaultdict(list)
for variant in ("before", "after"):
    for path in glob.glob(os.path.join(here, variant, "*_np*_run*.json")):
        collective, ranks = re.match(r"(\w+?)_np(\d+)_run\d+\.json", os.path.basename(path)).groups()
        rows = [r for r in json.load(open(path))["rows"] if not r["in_place"] and r["size_bytes"] > 0]
        mpi = {r["size_bytes"]: r["time_us"] for r in rows if r["backend"] == "mpi"}
        for r in rows:
            if r["backend"] == "cclab":
                key = (collective, int(ranks), r["size_bytes"], variant)
                own[key].append(r["time_us"])
                ratio[key].append(mpi[r["size_bytes"]] / r["time_us"])
med = statistics.median
print("| collective | N | bytes | cclab µs, before | after | after ÷ before | cclab ÷ MPI, before | after |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for key in sorted({k[:3] for k in own}):
    b, a = key + ("before",), key + ("after",)
    print(f"| {key[0]} | {key[1]} | {key[2]} | {med(own[b]):.2f} | {med(own[a]):.2f} | {med(own[a]) / med(own[b]):.2f} "
          f"| {med(ratio[b]):.2f} | {med(ratio[a]):.2f} |")
