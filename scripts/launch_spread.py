#!/usr/bin/env python3
"""How far one launch of a sweep is from another, and which reading of repeated launches repeats:
from scripts/measure_cpu_algorithms.sh ROUNDS=k's files (<algo>_np<ranks>[-r<i>].json), for every
row of one backend measured in every round, split the rounds into two disjoint pairs every way
there is, read each pair as its fastest launch or as its median (the mean of the two), and print
the median |difference| between the pairs' readings, below 64 KiB and from 64 KiB. The reading
whose pairs agree better is the one a model can be checked against (docs/algorithm-validation.md, "Which
launch a row stands for").

Usage: scripts/launch_spread.py results/measured/<machine>/algorithms-shm [backend (default cclab)]
"""
import collections
import glob
import itertools
import os
import json
import re
import statistics
import sys

ROUND = re.compile(r"_np\d+(?:-r(\d+))?\.json$")


def main():
    folder = sys.argv[1]
    if not os.path.isdir(folder):
        sys.exit(f"{folder}: not a folder of measure_cpu_algorithms.sh sweeps")
    backend = sys.argv[2] if len(sys.argv) > 2 else "cclab"
    launches = collections.defaultdict(dict)  # row -> {round: time}
    for path in glob.glob(f"{folder}/*_np*.json"):
        match = ROUND.search(path)
        if not match:
            continue
        rnd = int(match.group(1) or 1)
        for r in json.load(open(path))["rows"]:
            if r["backend"] != backend:
                continue
            key = (r["collective"], r["algo"], r["in_place"], r["size_bytes"], r["nranks"])
            launches[key][rnd] = r["time_us"]
    rounds = sorted({i for v in launches.values() for i in v})
    complete = {k: v for k, v in launches.items() if len(v) == len(rounds)}
    if len(rounds) < 4 or not complete:
        sys.exit(f"{folder}: needs rows of {backend} measured in at least 4 rounds (found {len(rounds)})")
    readings = {"fastest": min, "median": statistics.median}
    print(f"# {folder}: {len(complete)} {backend} rows, each in {len(rounds)} launches; two disjoint pairs of launches")
    print(f"# {'reading':<8} {'< 64 KiB':>10} {'>= 64 KiB':>10}   (median |difference| between the pairs' readings)")
    for name, read in readings.items():
        small, large = [], []
        for a in itertools.combinations(rounds, 2):
            rest = [i for i in rounds if i not in a]
            for b in itertools.combinations(rest, 2):
                for key, times in complete.items():
                    x, y = read([times[i] for i in a]), read([times[i] for i in b])
                    (large if key[3] >= 65536 else small).append(abs(x - y) / y * 100)
        print(f"  {name:<8} {statistics.median(small):>9.1f}% {statistics.median(large):>9.1f}%")


if __name__ == "__main__":
    from script_errors import guard
    guard(main, "usage: scripts/launch_spread.py <algorithms folder> [backend (default cclab)]")
