#!/usr/bin/env python3
"""The shared-buffers A/B as a markdown table: per collective, rank count and size, the median
over the rounds of the MPI library's time over cclab's in the same launch (cclab ÷ MPI in
bandwidth; a size is the nearest power of two, as ccbench rounds it to whole elements a rank),
private buffers → shared ones; out of place, and in place after a slash where --in-place is
given. Reads the run.sh outputs beside it.
  table.py [--in-place]
"""
import collections, glob, math, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
ratios = collections.defaultdict(list)  # (coll, np, buffers, size, inplace) -> [MPI us / cclab us]
mpiTimes = collections.defaultdict(list)  # (coll, np, buffers, size) -> [MPI us, out of place]: did the buffers move the library?
for path in glob.glob(os.path.join(here, '*_np*_*_r*.txt')):
    coll, np, buffers = re.match(r'(.+)_np(\d)_(private|shared)_r\d+\.txt', os.path.basename(path)).groups()
    backend, mpi = None, {}
    for line in open(path):
        if line.startswith('# Backend'):
            backend = line.split()[2]
            continue
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            size, times = 1 << round(math.log2(int(f[0]))), (float(f[5]), float(f[9]))
            if backend == 'mpi':
                mpi[size] = times
                mpiTimes[(coll, int(np), buffers, size)].append(times[0])
            elif size in mpi:
                for inplace in (0, 1):
                    ratios[(coll, int(np), buffers, size, inplace)].append(mpi[size][inplace] / times[inplace])

def label(size): return f"{round(size / 2**20)} MiB"
sizes = sorted({k[3] for k in ratios})
print('| collective, ranks | ' + ' | '.join(label(s) for s in sizes) + ' |')
print('| --- ' * (len(sizes) + 1) + '|')
below = {'private': 0, 'shared': 0}
cells = 0
gains = collections.defaultdict(list)  # collective -> shared's ratio over private's, per cell
large = collections.defaultdict(list)  # (collective, buffers) -> ratios at 64 and 256 MiB
for coll in ('all_reduce', 'reduce_scatter', 'all_gather', 'broadcast', 'alltoall'):
    for np in (2, 3, 4, 5):
        row = []
        for s in sizes:
            parts = []
            for inplace in ((0, 1) if '--in-place' in sys.argv else (0,)):
                a = ratios.get((coll, np, 'private', s, inplace)); b = ratios.get((coll, np, 'shared', s, inplace))
                if not a or not b:
                    parts.append('–')
                    continue
                ma, mb = statistics.median(a), statistics.median(b)
                cells += 1
                below['private'] += ma < 1.0
                below['shared'] += mb < 1.0
                gains[coll].append(mb / ma)
                if s >= 64 << 20:
                    large[(coll, 'private')].append(ma)
                    large[(coll, 'shared')].append(mb)
                parts.append(f"{ma:.2f} → {mb:.2f}")
            row.append(' / '.join(parts))
        print(f"| {coll}, {np} | " + ' | '.join(row) + ' |')
print()
for coll, g in gains.items():
    print(f"{coll}: shared over private median {statistics.median(g):.2f} ({min(g):.2f}-{max(g):.2f}), higher in "
          f"{sum(x > 1 for x in g)} of {len(g)}; 64-256 MiB median vs MPI {statistics.median(large[(coll, 'private')]):.2f} → "
          f"{statistics.median(large[(coll, 'shared')]):.2f}")
moves = [statistics.median(mpiTimes[k]) / statistics.median(mpiTimes[(k[0], k[1], 'private', k[3])])
         for k in mpiTimes if k[2] == 'shared' and (k[0], k[1], 'private', k[3]) in mpiTimes]
print(f"the MPI library's own time on shared buffers over private ones, per cell: median {statistics.median(moves):.2f} "
      f"({min(moves):.2f}-{max(moves):.2f})")
print(f"cells below 1.0: private {below['private']} of {cells}, shared {below['shared']} of {cells}; "
      f"rounds: {min(len(v) for v in ratios.values())}-{max(len(v) for v in ratios.values())}")
