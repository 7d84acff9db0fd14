#!/usr/bin/env python3
"""What one step of a small message costs when 2 or 3 ranks share a core, sweep by sweep.

A 2-core host runs 3 and 4 ranks with 2 on its busiest core and 5 with 3. The simulator prices a
step's oversubscribed latency by that load, sigma x ceil(ranks / cores), so a step at 5 ranks
costs 1.5 times one at 4 (docs/simulator.md, "Shared-memory fabrics"); a fit on 2 and 4 ranks
sees loads of 1 and 2 only and cannot learn what 3 costs. This reads a sweep's ccbench results
(`<folder>/*_np*.json`, the fastest of its launches for each row) and prints, for cclab's
algorithms whose steps every rank takes in lockstep (the ring family and the pairwise alltoall),
the median time of a step at 8 B-2 KiB at 3, 4 and 5 ranks, and the 5-rank step over the 4-rank
one beside the model's 1.5.

usage: scripts/step_cost_by_load.py <sweep folder> [<sweep folder> ...]
"""
import glob
import json
import statistics
import sys

# Steps of one call at n ranks (docs/simulator.md, "Plans, algorithm by algorithm").
STEPS = {
    ("all_gather", "ring"): lambda n: n - 1,
    ("reduce_scatter", "ring"): lambda n: n - 1,
    ("all_reduce", "ring"): lambda n: 2 * (n - 1),
    ("alltoall", "pairwise"): lambda n: n - 1,
    ("sendrecv", "ring"): lambda n: 1,
}
MODEL_RATIO = 1.5  # ceil(5 / 2) / ceil(4 / 2): the busiest core's ranks at 5 over 4


def fastest_times(folder):
    """(collective, algo, in place, ranks, size) -> the fastest launch's time in us, cclab rows."""
    best = {}
    files = sorted(glob.glob(folder + "/*_np*.json"))
    if not files:
        raise ValueError("no *_np*.json files")
    for path in files:
        with open(path) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            if r["backend"] != "cclab":
                continue
            key = (r["collective"], r["algo"], bool(r["in_place"]), int(r["nranks"]), int(r["size_bytes"]))
            best[key] = min(best.get(key, float("inf")), float(r["time_us"]))
    return best


def step_costs(best):
    """(collective, algo) -> {ranks: median us a step over 8 B-2 KiB, both placements}."""
    out = {}
    for (collective, algo), steps in STEPS.items():
        per = {}
        for n in (3, 4, 5):
            times = [t for (c, a, _, ranks, size), t in best.items()
                     if c == collective and a == algo and ranks == n and 8 <= size <= 2100]
            if times:
                per[n] = statistics.median(times) / steps(n)
        if len(per) == 3:
            out[(collective, algo)] = per
    return out


def main():
    for folder in sys.argv[1:]:
        try:
            costs = step_costs(fastest_times(folder))
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"step_cost_by_load.py: {folder}: not a sweep of ccbench results ({e!r})")
        print(f"# {folder}")
        print(f"{'collective':15s} {'algo':9s} {'us/step@3':>9s} {'@4':>6s} {'@5':>6s} {'5 over 4':>8s} {'model':>6s}")
        for (collective, algo), per in costs.items():
            print(f"{collective:15s} {algo:9s} {per[3]:9.2f} {per[4]:6.2f} {per[5]:6.2f} {per[5] / per[4]:8.2f} {MODEL_RATIO:6.2f}")


if __name__ == "__main__":
    from script_errors import guard
    guard(main, "usage: step_cost_by_load.py <sweep folder> [<sweep folder> ...]")
