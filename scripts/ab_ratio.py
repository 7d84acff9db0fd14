#!/usr/bin/env python3
"""Interleaved A/B rounds of ccbench output: cclab's algbw over the MPI library's, or one build's
cclab time over another's.

usage: ab_ratio.py FILE                 median over the rounds of cclab/MPI, per variant and size
       ab_ratio.py --times A B FILE     variant A's cclab time over variant B's, per size (each
                                        variant's fastest round)

FILE holds rounds of ccbench text output, each opened by a "## <variant> round <i>" line and
holding the MPI backend's table then cclab's (--backend mpi,cclab), as the ab.sh scripts under
results/measured/cpu-2core-amd-epyc/shm/ab-*/ write them. Prints size: out-of-place ratio /
in-place ratio. The first form's ratio is of the times (MPI's over cclab's): the same as the
algbw ratio, without the printed algbw's rounding.
"""
import sys, statistics, collections

from script_errors import guard


def main():
    args = sys.argv[1:]
    times = args[:1] == ['--times']
    if times:
        first, second, path = args[1:4]
    else:
        path = args[0]

    cur = None; back = None; rows = {}
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))  # variant -> size -> [(out, in)]
    fastest = collections.defaultdict(lambda: collections.defaultdict(lambda: [float('inf')] * 2))  # variant -> size -> cclab us
    for line in open(path):
        if line.startswith('## '): cur = line.split()[1]; rows = {}; continue
        if line.startswith('# Backend'): back = 'mpi' if 'mpi' in line.split()[2] else 'cclab'; continue
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            if cur is None:
                sys.exit(f"{path}: a table row before any '## <variant> round <i>' line: not the A/B rounds this reads")
            size = int(f[0]); oop = float(f[5]); ip = float(f[9])
            if back == 'mpi':
                rows[size] = (oop, ip)
                continue
            best = fastest[cur][size]; best[0] = min(best[0], oop); best[1] = min(best[1], ip)
            if size in rows:
                m = rows[size]; ratios[cur][size].append((m[0] / oop if oop else 0, m[1] / ip if ip else 0))

    if not fastest:
        sys.exit(f"{path}: no ccbench rows in '## <variant> round <i>' rounds")

    def fmt(s): return f"{s>>20}M" if s >= 1 << 20 else f"{s>>10}K" if s >= 1024 else f"{s}"

    if times:
        a, b = fastest[first], fastest[second]
        print(' '.join(f"{fmt(s)}:{a[s][0]/b[s][0]:.2f}/{a[s][1]/b[s][1]:.2f}" for s in sorted(a) if s in b))
    else:
        for v in ratios:
            print(f"{v:10s}", ' '.join(f"{fmt(s)}:{statistics.median(r[0] for r in l):.2f}/{statistics.median(r[1] for r in l):.2f}"
                                       for s, l in sorted(ratios[v].items())))


if __name__ == "__main__":
    guard(main, "usage: ab_ratio.py [--times A B] FILE")
