#!/usr/bin/env python3
# Median over rounds of cclab/mpi (out-of-place algbw, ccbench's side-by-side table) per case, size:
# auto (the new pick) beside the old pick forced.
import glob, os, re, statistics, sys, collections
d = sys.argv[1]
ratios = collections.defaultdict(list)  # (coll, np, algo, size) -> [ratio]
algbw = collections.defaultdict(list)
picks = {}
for f in sorted(glob.glob(os.path.join(d, '*_r[0-9].txt'))):
    m = re.match(r'(.+)_np(\d)_(\w+)_r(\d)\.txt', os.path.basename(f))
    coll, n, algo, rnd = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
    side = False
    for line in open(f):
        if line.startswith('# auto picked'): picks[(coll, n)] = line.split(':', 1)[1].strip()
        if line.startswith('# Side by side'): side = True; continue
        if side:
            p = line.lstrip('#').split()
            if len(p) == 7 and p[0].isdigit():
                ratios[(coll, n, algo, int(p[0]))].append(float(p[6]))
                algbw[(coll, n, algo, int(p[0]))].append(float(p[5]))
keys = sorted({(k[0], k[1], k[3]) for k in ratios})
print('| collective, ranks | size | auto picked | auto: cclab/MPI | old pick | old pick: cclab/MPI | auto ÷ old pick (cclab algbw) |')
print('| --- | ---: | --- | ---: | --- | ---: | ---: |')
for coll, n, size in keys:
    algos = sorted({k[2] for k in ratios if k[0] == coll and k[1] == n and k[3] == size})
    old = [a for a in algos if a != 'auto'][0]
    ra, ro = ratios[(coll, n, 'auto', size)], ratios[(coll, n, old, size)]
    ba, bo = statistics.median(algbw[(coll, n, 'auto', size)]), statistics.median(algbw[(coll, n, old, size)])
    pick = picks.get((coll, n), '?')
    print(f'| {coll}, {n} | {size} | {pick} | {statistics.median(ra):.2f} ({min(ra):.2f}–{max(ra):.2f}) | {old} | {statistics.median(ro):.2f} ({min(ro):.2f}–{max(ro):.2f}) | {ba/bo:.2f} |')
