#!/usr/bin/env python3
"""Which rank count a fit on 2 and 4 ranks is misled by, algorithm by algorithm.

Reads `ccsim validate --json` of a sweep at 3, 4 and 5 ranks (every rank count validated, not only
the held-out ones) and prints, per algorithm, from 64 KiB:

- the 4-rank excess: the measured t4 / sqrt(t3 * t5) over the predicted one, median over sizes
  and placements. 1 means the 4-rank rows sit where the model's rank scaling puts them between 3
  and 5; above 1 they are slower than that (a fit that includes them then prices 3 and 5 too
  slow), below 1 faster;
- the median error at 3 and at 5 ranks (predicted / measured - 1).

A size is matched across rank counts by its power of 4 (an all_gather's 131,064 B at 3 ranks is
the 131,072 B at 4).

usage: ccsim validate --cluster <calibrated.json> <sweep>/*_np*.json --json all.json
       scripts/rank_excess.py all.json
"""
import collections
import json
import math
import statistics
import sys


def main(argv):
    if len(argv) != 2:
        print("usage: rank_excess.py <ccsim validate --json output>", file=sys.stderr)
        return 2
    times = collections.defaultdict(dict)  # (impl, collective, algo, in place, size) -> ranks -> (measured, predicted)
    try:
        with open(argv[1]) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            if r["size_bytes"] < 60000:
                continue
            key = (r["backend"], r["collective"], r["algo"], r["in_place"], round(math.log2(r["size_bytes"]) / 2))
            times[key][r["nranks"]] = (float(r["measured_time_us"]), float(r["predicted_time_us"]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"rank_excess.py: {argv[1]}: not a ccsim validate --json file ({e!r})", file=sys.stderr)
        return 2
    per_algorithm = collections.defaultdict(list)
    for key, by_ranks in times.items():
        if not all(n in by_ranks for n in (3, 4, 5)):
            continue
        (m3, p3), (m4, p4), (m5, p5) = by_ranks[3], by_ranks[4], by_ranks[5]
        if min(m3, p3, m4, p4, m5, p5) <= 0:
            continue  # an unmeasured or unpriced row has no scaling to read
        excess = (m4 / math.sqrt(m3 * m5)) / (p4 / math.sqrt(p3 * p5))
        per_algorithm[key[:3]].append((excess, p3 / m3 - 1, p5 / m5 - 1))
    if not per_algorithm:
        print("rank_excess.py: no size measured at 3, 4 and 5 ranks from 64 KiB", file=sys.stderr)
        return 2
    print(f"{'impl':6} {'collective':15} {'algo':9} {'4-rank excess':>13} {'err@3':>7} {'err@5':>7}  (from 64 KiB)")
    for (impl, collective, algo), values in sorted(per_algorithm.items()):
        med = [statistics.median(v[i] for v in values) for i in range(3)]
        print(f"{impl:6} {collective:15} {algo:9} {med[0]:13.2f} {100 * med[1]:+6.1f}% {100 * med[2]:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
