#!/usr/bin/env python3
"""Median over interleaved A/B rounds of cclab's algbw over the MPI library's, per variant and size.

usage: ab_ratio.py FILE

FILE holds rounds of ccbench text output, each opened by a "## <variant> round <i>" line and
holding the MPI backend's table then cclab's (--backend mpi,cclab), as the ab.sh scripts under
results/measured/cpu-2core-amd-epyc/shm/ab-*/ write them. Prints one line per variant: size:
out-of-place ratio / in-place ratio. The ratio is of the times (MPI's over cclab's): the same as
the algbw ratio, without the printed algbw's rounding.
"""
import sys, statistics, collections

cur=None; back=None; rows={}; out=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    if line.startswith('## '): cur=line.split()[1]; rows={}; continue
    if line.startswith('# Backend'): back='mpi' if 'mpi' in line.split()[2] else 'cclab'; continue
    f=line.split()
    if len(f)>=13 and f[0].isdigit():
        size=int(f[0]); oop=1/float(f[5]) if float(f[5]) else 0; ip=1/float(f[9]) if float(f[9]) else 0
        if back=='mpi': rows[size]=(oop,ip)
        elif size in rows:
            m=rows[size]; out[cur][size].append((oop/m[0] if m[0] else 0, ip/m[1] if m[1] else 0))
def fmt(s): return f"{s>>20}M" if s>=1<<20 else f"{s>>10}K" if s>=1024 else f"{s}"
for v in out:
    print(f"{v:10s}", ' '.join(f"{fmt(s)}:{statistics.median(r[0] for r in l):.2f}/{statistics.median(r[1] for r in l):.2f}" for s,l in sorted(out[v].items())))
