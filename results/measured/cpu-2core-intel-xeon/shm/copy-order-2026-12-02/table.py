#!/usr/bin/env python3
"""One way per size, before and after: the range over the rounds and the ratio of the medians."""
import glob, json, os, statistics, sys
here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
times = {}
for variant in ("before", "after"):
    for path in sorted(glob.glob(os.path.join(here, f"{variant}_r*.json"))):
        for b in json.load(open(path))["benchmarks"]:
            times.setdefault((variant, int(b["name"].split("/")[1])), []).append(b["one_way_us"])
print("| bytes | before, µs | after, µs | after ÷ before (medians) |")
print("| ---: | --- | --- | ---: |")
for size in sorted({s for _, s in times}):
    b, a = times[("before", size)], times[("after", size)]
    print(f"| {size} | {min(b):.3f}–{max(b):.3f} | {min(a):.3f}–{max(a):.3f} | {statistics.median(a) / statistics.median(b):.2f} |")
