#!/usr/bin/env python3
"""Per ranks and size from 256 KiB, before and after: cclab's broadcast algbw over the MPI
library's in the same launch, out of place and in place (medians over the rounds), and cclab's
out-of-place time over its in-place time (median): 1.0 when the root's copy costs nothing."""
import collections, glob, json, os, re, statistics, sys
here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
ratio = collections.defaultdict(list)  # (ranks, size, variant, in_place) -> MPI time / cclab time
own = collections.defaultdict(list)    # (ranks, size, variant) -> cclab out-of-place / in-place time
for variant in ("before", "after"):
    for path in glob.glob(os.path.join(here, variant, "broadcast_np*_run*.json")):
        ranks = int(re.search(r"_np(\d+)_", path).group(1))
        rows = [r for r in json.load(open(path))["rows"] if r["size_bytes"] >= 256 * 1024]
        time = {(r["backend"], r["size_bytes"], r["in_place"]): r["time_us"] for r in rows}
        for (backend, size, in_place), t in time.items():
            if backend != "cclab":
                continue
            ratio[(ranks, size, variant, in_place)].append(time[("mpi", size, in_place)] / t)
            if not in_place:
                own[(ranks, size, variant)].append(t / time[("cclab", size, True)])
med = lambda values: f"{statistics.median(values):.2f}"
print("| N | size | out of place, before | after | in place, before | after | cclab out ÷ in place, before | after |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for ranks, size in sorted({(k[0], k[1]) for k in own}):
    cells = [med(ratio[(ranks, size, v, False)]) for v in ("before", "after")]
    cells += [med(ratio[(ranks, size, v, True)]) for v in ("before", "after")]
    cells += [med(own[(ranks, size, v)]) for v in ("before", "after")]
    label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
    print(f"| {ranks} | {label} | " + " | ".join(cells) + " |")
