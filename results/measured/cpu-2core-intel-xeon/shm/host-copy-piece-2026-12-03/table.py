#!/usr/bin/env python3
"""The host-copy-piece A/B as a markdown table: per collective, rank count and size, the median
over the rounds of the MPI library's time over cclab's in the same launch (cclab ÷ MPI in
bandwidth; a size is the nearest power of two, as ccbench rounds it to whole elements a rank), with 128 KiB pieces → one memcpy; out of place, and in place after a
slash where --in-place is given. Reads the run.sh outputs beside it.
  table.py [--in-place]
"""
import collections, glob, math, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
ratios = collections.defaultdict(list)  # (coll, np, piece, size, inplace) -> [MPI us / cclab us]
for path in glob.glob(os.path.join(here, '*_np*_piece*_r*.txt')):
    coll, np, piece = re.match(r'(.+)_np(\d)_piece(\w+)_r\d+\.txt', os.path.basename(path)).groups()
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
            elif size in mpi:
                for inplace in (0, 1):
                    ratios[(coll, int(np), piece, size, inplace)].append(mpi[size][inplace] / times[inplace])

def label(size): return f"{round(size / 2**20)} MiB"
sizes = sorted({k[3] for k in ratios})
print('| collective, ranks | ' + ' | '.join(label(s) for s in sizes) + ' |')
print('| --- ' * (len(sizes) + 1) + '|')
below = {'128K': 0, '0': 0}
cells = 0
gains = []  # one memcpy's ratio over 128 KiB pieces', per cell
for coll in ('broadcast', 'all_gather', 'alltoall'):
    for np in (2, 3, 4, 5):
        row = []
        for s in sizes:
            parts = []
            for inplace in ((0, 1) if '--in-place' in sys.argv else (0,)):
                a = ratios.get((coll, np, '128K', s, inplace)); b = ratios.get((coll, np, '0', s, inplace))
                if not a or not b:
                    parts.append('–')
                    continue
                ma, mb = statistics.median(a), statistics.median(b)
                cells += 1
                below['128K'] += ma < 1.0
                below['0'] += mb < 1.0
                gains.append(mb / ma)
                parts.append(f"{ma:.2f} → {mb:.2f}")
            row.append(' / '.join(parts))
        print(f"| {coll}, {np} | " + ' | '.join(row) + ' |')
print(f"\none memcpy higher in {sum(g > 1 for g in gains)} of {cells} cells; its ratio over the pieces': median "
      f"{statistics.median(gains):.2f}, {min(gains):.2f}-{max(gains):.2f}")
print(f"cells below 1.0: 128 KiB pieces {below['128K']} of {cells}, one memcpy {below['0']} of {cells}; "
      f"rounds: {min(len(v) for v in ratios.values())}-{max(len(v) for v in ratios.values())}")
